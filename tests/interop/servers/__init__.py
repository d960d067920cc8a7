"""Small toolwire servers the interop tests launch as real subprocesses."""
