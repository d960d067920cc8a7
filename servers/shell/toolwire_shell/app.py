"""The server as a module-level `server`, configured by the TOOLWIRE_SHELL_ARGS environment
variable (the `toolwire-shell` options, split as a POSIX shell would), for `toolwire run
toolwire_shell.app` and so for `toolwire install CLIENT toolwire_shell.app --env
TOOLWIRE_SHELL_ARGS="--root DIR ..."`. Transport options in it are ignored (`toolwire run`
chooses the transport); a refused option ends the import with a `SystemExit` naming it."""

from __future__ import annotations

import os
import shlex

from .__main__ import config_from, parser
from ._policy import CommandRefused
from .server import build_server

__all__ = ["server"]

try:
    server = build_server(
        config_from(parser().parse_args(shlex.split(os.environ.get("TOOLWIRE_SHELL_ARGS", ""))))
    )
except CommandRefused as error:
    raise SystemExit(f"toolwire-shell: {error}") from None
