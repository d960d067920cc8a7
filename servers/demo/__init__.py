"""The toolwire demo server: run it with `python -m servers.demo`."""
