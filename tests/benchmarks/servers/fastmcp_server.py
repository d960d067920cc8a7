"""FastMCP 4 peer: the same two tools. Banner and update check follow FastMCP's own settings
(the benchmark runs it once with FASTMCP_SHOW_SERVER_BANNER=false and once with defaults)."""

from fastmcp import FastMCP

mcp = FastMCP("bench")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


if __name__ == "__main__":
    mcp.run()
