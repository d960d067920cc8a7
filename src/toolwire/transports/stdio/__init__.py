"""MCP over stdio: newline-delimited frames on the process's own stdin and stdout, and its life."""
