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
    mcp.run(show_banner=False)
