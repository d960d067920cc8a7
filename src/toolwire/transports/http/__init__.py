"""MCP over HTTP: streamable HTTP and the legacy HTTP+SSE transport (Starlette, uvicorn)."""
