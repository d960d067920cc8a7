"""Prints at import time: only safe under `python -m toolwire run`, which protects stdout first."""

from toolwire import Server

print("noisy: a print() at import time")

server = Server("noisy")


@server.tool
def shout(text: str) -> str:
    """Upper-case the text.

    Args:
        text: What to shout.
    """
    print("noisy: a print() inside a tool")
    return text.upper()
