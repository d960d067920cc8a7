"""The resource methods' routes, for the era tables in `session.py`."""

from __future__ import annotations

from .methods import Route

__all__ = ["RESOURCE_ROUTES_HANDSHAKE", "RESOURCE_ROUTES_MODERN"]

RESOURCE_ROUTES_HANDSHAKE: dict[str, Route] = {}
RESOURCE_ROUTES_MODERN: dict[str, Route] = {}
