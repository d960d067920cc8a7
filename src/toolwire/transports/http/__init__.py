"""MCP over HTTP (streamable HTTP, both protocol eras); imports Starlette and uvicorn only
on these paths."""
