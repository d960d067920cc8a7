"""The I/O-bound tool of bench_peers.py, as a Python user would write it: one Redis GET
(`redis.asyncio`) and one HTTP GET (aiohttp or httpx, by BENCH_HTTP_CLIENT) against the
services whose addresses are in BENCH_REDIS_URL and BENCH_API_URL, merged into one JSON text.

The clients are made on the first call, inside the server's event loop, and kept for the
process's life, as a long-running server keeps its connection pools.
"""

import json
import os

import redis.asyncio

REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
API_URL = os.environ.get("BENCH_API_URL", "http://127.0.0.1:8080")
HTTP_CLIENT = os.environ.get("BENCH_HTTP_CLIENT", "aiohttp")

_store = None
_get_json = None


def _http_getter():
    if HTTP_CLIENT == "httpx":
        import httpx

        client = httpx.AsyncClient(base_url=API_URL)

        async def get_json(path):
            response = await client.get(path)
            response.raise_for_status()
            return response.json()

        return get_json
    if HTTP_CLIENT == "aiohttp":
        import aiohttp

        session = aiohttp.ClientSession(base_url=API_URL)

        async def get_json(path):
            async with session.get(path) as response:
                response.raise_for_status()
                return await response.json()

        return get_json
    raise ValueError(f"BENCH_HTTP_CLIENT must be aiohttp or httpx, not {HTTP_CLIENT!r}")


async def lookup(key: str) -> str:
    """Read item `key` from Redis and from the HTTP API, and return both as one JSON text."""
    global _store, _get_json
    if _store is None:
        _store = redis.asyncio.from_url(REDIS_URL, decode_responses=True)
        _get_json = _http_getter()
    cached = await _store.get(f"item:{key}")
    remote = await _get_json(f"/items/{key}")
    return json.dumps({"key": key, "cached": cached, "remote": remote})
