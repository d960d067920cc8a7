"""toolwire-patch: an MCP server that applies V4A and Codex patches atomically inside its roots.

`build_server(roots)` gives the toolwire `Server`; `Patcher(roots)` applies patches without
MCP; `PatchError` is what a patch that cannot be applied raises.
"""

from __future__ import annotations

from .errors import LimitError, PatchError
from .plan import Limits
from .server import Patcher, PatchOperation, build_server

__version__ = "0.1.0"

__all__ = ["LimitError", "Limits", "PatchError", "PatchOperation", "Patcher", "build_server"]
