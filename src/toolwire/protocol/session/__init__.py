"""One MCP session: its method tables, frames in and out, its requests, what a call may do."""
