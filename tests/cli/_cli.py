"""Run the `toolwire` command as a subprocess, with HOME and config dirs pointed at tmp."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def toolwire(
    *args: str, home: Path | None = None, cwd: Path = ROOT, **env: str
) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ)
    paths = [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    environ["PYTHONPATH"] = os.pathsep.join([*paths, str(ROOT / "src")])
    for key in ("XDG_CONFIG_HOME", "APPDATA", "TOOLWIRE_LOG_LEVEL"):
        environ.pop(key, None)
    if home is not None:  # never the real home
        environ["HOME"] = str(home)
        environ["USERPROFILE"] = str(home)
    environ.update(env)
    return subprocess.run(  # noqa: PLW1510 - callers assert the exit code
        [sys.executable, "-m", "toolwire", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        env=environ,
        cwd=cwd,
    )
