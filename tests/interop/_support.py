"""Shared bits of the interop tests: the fixture servers and how to launch them."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
KITCHEN = SERVERS / "kitchen.py"
NOISY = SERVERS / "noisy.py"

# Every way a user starts a toolwire server on stdio: the script's own `server.run()`, and
# the CLI (`python -m toolwire run file.py`), which protects stdout before importing it.
LAUNCHERS: dict[str, list[str]] = {
    "script": [str(KITCHEN)],
    "cli": ["-m", "toolwire", "run", str(KITCHEN)],
}

KITCHEN_TOOLS = {
    "add",
    "echo",
    "profile",
    "pixel",
    "boom",
    "boom_loud",
    "progress",
    "nap",
    "block",
    "stats",
    "wipe",
}

DEFAULT_FAILURE = "An error occurred while running the tool. Please try again."

PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

ADD_INPUT_SCHEMA = {
    "type": "object",
    "title": "add_args",
    "properties": {
        "a": {"description": "The first addend.", "title": "A", "type": "integer"},
        "b": {"description": "The second addend.", "title": "B", "type": "integer"},
    },
    "required": ["a", "b"],
    "additionalProperties": False,
}


def command(launcher: str) -> tuple[str, list[str]]:
    """The (command, args) that starts the kitchen server with the given launcher."""
    return sys.executable, list(LAUNCHERS[launcher])
