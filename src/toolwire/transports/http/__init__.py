"""The HTTP transports: streamable HTTP (both protocol eras) and legacy SSE, with security."""
