"""toolwire-shell over HTTP behind bearer tokens: `python authenticated.py PORT`; tokens
`alice-token` and `bob-token` are two callers."""

from __future__ import annotations

import sys

from toolwire_shell import build_server

from toolwire import BearerAuth, Identity


async def verify(token: str) -> Identity | None:
    if token in ("alice-token", "bob-token"):
        return Identity(token.split("-", maxsplit=1)[0], client_id="tests")
    return None


server = build_server(auth=BearerAuth(verify))

if __name__ == "__main__":
    server.run("http", port=int(sys.argv[1]))
