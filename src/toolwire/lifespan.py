"""`LifespanError`: a server's lifespan failed on start-up (see `Server.serving`)."""

from __future__ import annotations

from .errors import ToolwireError

__all__ = ["LifespanError"]


class LifespanError(ToolwireError):
    """A server's lifespan failed on start-up (already logged); serving never began."""
