"""MCP over HTTP: the streamable HTTP transport (both protocol eras) and the legacy SSE one.

Importing this package pulls in nothing heavy; `app.py` imports Starlette when it builds an app.
"""
