"""The toolwire logger: stderr only, TOOLWIRE_LOG_LEVEL, and the application's config wins."""

from __future__ import annotations

import signal
import textwrap
from pathlib import Path

from tests.transports._proc import (
    INIT,
    frame,
    read_message,
    send,
    signal_and_collect,
    spawn,
    toolwire_run,
)

PLAIN = "from toolwire import Server\nserver = Server('plain')\n"
CONFIGURED = textwrap.dedent(
    """
    import logging, sys
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="APP %(name)s %(message)s")
    from toolwire import Server
    server = Server("configured")
    """
)


def _sigterm_stderr(module: Path, **env: str) -> str:
    proc = spawn(toolwire_run(module), **env)
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    out, err = signal_and_collect(proc, signal.SIGTERM)
    assert proc.returncode == 0 and out == b""
    return err.decode()


def test_info_level_from_the_environment(tmp_path: Path) -> None:
    module = tmp_path / "plain.py"
    module.write_text(PLAIN)
    assert _sigterm_stderr(module) == ""  # WARNING by default: nothing to say
    assert _sigterm_stderr(module, TOOLWIRE_LOG_LEVEL="info").splitlines() == [
        "INFO toolwire.stdio: received SIGTERM; shutting down"
    ]


def test_an_unknown_level_falls_back_to_warning_and_says_so(tmp_path: Path) -> None:
    module = tmp_path / "plain.py"
    module.write_text(PLAIN)
    err = _sigterm_stderr(module, TOOLWIRE_LOG_LEVEL="chatty")
    assert "TOOLWIRE_LOG_LEVEL='CHATTY' is not a level; using WARNING" in err
    assert "received SIGTERM" not in err


def test_the_applications_logging_config_is_used_not_ours(tmp_path: Path) -> None:
    module = tmp_path / "configured.py"
    module.write_text(CONFIGURED)
    err = _sigterm_stderr(module, TOOLWIRE_LOG_LEVEL="DEBUG")
    assert err.splitlines() == ["APP toolwire.stdio received SIGTERM; shutting down"]
