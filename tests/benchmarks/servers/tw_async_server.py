"""tw_server.py with `add` written as a coroutine: the same tool without the worker-thread hop
that a sync tool takes (the Agents SDK's semantics), to show what that hop costs."""

from toolwire import Server

server = Server("bench")


@server.tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
async def echo(text: str) -> str:
    """Echo the text."""
    return text


if __name__ == "__main__":
    server.run()
