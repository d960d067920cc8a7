"""The server as a module-level `server`, configured by the TOOLWIRE_FILES_ARGS environment
variable (the `toolwire-files` arguments, split as a POSIX shell would), for `toolwire run
toolwire_files.app` and so for `toolwire install CLIENT toolwire_files.app --env
TOOLWIRE_FILES_ARGS="DIR ..."`. Without the variable no directory is allowed; transport flags
in it are ignored (`toolwire run` chooses the transport)."""

from __future__ import annotations

import os
import shlex

from .cli import access_from, parse
from .server import build_server

__all__ = ["server"]

_options = parse(shlex.split(os.environ.get("TOOLWIRE_FILES_ARGS", "")), need_directory=False)
server = build_server(access_from(_options), read_only=_options.read_only)
