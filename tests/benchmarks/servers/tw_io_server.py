"""toolwire with the I/O-bound tool of bench_peers.py (io_tool.py) as an async tool."""

from io_tool import lookup as _lookup

from toolwire import Server

server = Server("bench")


@server.tool
async def lookup(key: str) -> str:
    """Read an item from Redis and from the HTTP API."""
    return await _lookup(key)


if __name__ == "__main__":
    server.run()
