"""The toolwire demo server: `python -m servers.demo` (stdio), or `toolwire run servers.demo`."""

from servers.demo.server import server

__all__ = ["server"]
