"""Placeholder: the 2026-07-28 fixture tools arrive in the next commit."""

from __future__ import annotations

from toolwire import Server


def add_modern_tools(server: Server) -> None:
    """Publish the tools only the alpha harness's 2026-07-28 scenarios call."""
