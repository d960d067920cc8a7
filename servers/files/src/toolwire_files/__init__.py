"""toolwire-files: a filesystem MCP server confined by directory descriptors (see README.md)."""

from __future__ import annotations

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
