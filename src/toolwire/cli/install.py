"""`toolwire install`: merge an entry running `sys.executable -m toolwire run TARGET` into a
client's MCP config, never losing it: other keys stay, the old file is kept as a timestamped
backup, an invalid one is refused untouched, and the new one is written atomically, through a
symlink and with its mode."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._target import portable_target

if TYPE_CHECKING:
    import argparse

    from ..server import Server

__all__ = ["InstallError", "default_config_path", "install", "server_entry"]


class InstallError(Exception):
    """The config cannot be written; nothing was changed."""


def default_config_path(client: str) -> Path | None:
    """Where `client` keeps its MCP servers (None for mcp-json, which prints instead)."""
    home = Path.home()
    if client == "claude-desktop":
        if sys.platform == "darwin":
            return home / "Library/Application Support/Claude/claude_desktop_config.json"
        if sys.platform == "win32":
            appdata = os.environ.get("APPDATA")
            base = Path(appdata) if appdata else home / "AppData/Roaming"
            return base / "Claude/claude_desktop_config.json"
        xdg = os.environ.get("XDG_CONFIG_HOME")
        base = Path(xdg) if xdg else home / ".config"
        return base / "Claude/claude_desktop_config.json"
    if client == "cursor":
        return home / ".cursor/mcp.json"
    if client == "claude-code":
        return home / ".claude.json"
    return None


def _env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InstallError(f"--env takes KEY=VALUE, got {pair!r}")
        env[key.strip()] = value
    return env


def server_entry(client: str, target: str, path: str | None, env: dict[str, str]) -> dict[str, Any]:
    """The `client`'s config entry that launches the server with this interpreter.

    Clients start servers in a directory of their own choosing, so a file TARGET is made
    absolute and a module TARGET gets `--path`.
    """
    target, import_dir = portable_target(target, path)
    args = ["-m", "toolwire", "run", target]
    if import_dir is not None:
        args += ["--path", import_dir]
    entry: dict[str, Any] = {}
    if client == "claude-code":
        entry["type"] = "stdio"
    # Not resolved: a venv's python is a symlink whose location selects the venv.
    entry["command"] = sys.executable
    entry["args"] = args
    if env:
        entry["env"] = env
    return entry


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InstallError(f"cannot read {path}: {error}; nothing was changed") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as error:
        raise InstallError(
            f"{path} is not valid JSON ({error}); fix or move it first; nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(
            f"{path} holds a JSON {type(data).__name__}, not an object; nothing was changed"
        )
    if not isinstance(data.get("mcpServers", {}), dict):
        raise InstallError(f'{path}: "mcpServers" is not a JSON object; nothing was changed')
    return data


def _backup(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.{stamp}.bak")
    counter = 1
    while backup.exists():  # two installs in one second must not lose the older backup
        counter += 1
        backup = path.with_name(f"{path.name}.{stamp}-{counter}.bak")
    shutil.copy2(path, backup)
    return backup


def _write_atomically(path: Path, text: str) -> Path | None:
    """Write `text` to `path` (through a symlink), keeping a backup; returns the backup."""
    if path.is_symlink():
        path = path.resolve()  # dotfile managers link configs; keep the link, write its target
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    mode = 0o600 if path.name == ".claude.json" else 0o644
    if path.exists():
        backup = _backup(path)
        mode = stat.S_IMODE(path.stat().st_mode)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return backup


def _why(path: Path, error: OSError) -> str:
    """Why the config could not be written, naming the part of the path at fault."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                return f"{parent} is a file, not a directory"
            break
    where = f" ({error.filename})" if error.filename else ""
    return f"{error.strerror or error}{where}"


def install(args: argparse.Namespace, server: Server) -> str:
    """Merge the entry into the client's config (or print it); return the report to print."""
    name = (args.name or server.name).strip()
    if not name:
        raise InstallError("the server needs a name: pass --name")
    entry = server_entry(args.client, args.target, args.path, _env(args.env))
    path = Path(args.config).expanduser() if args.config else default_config_path(args.client)
    if path is None:  # mcp-json without --config: a standalone config on stdout
        return json.dumps({"mcpServers": {name: entry}}, indent=2, ensure_ascii=False)
    data = _read(path)
    servers = dict(data.get("mcpServers", {}))
    replaced = name in servers
    others = sorted(key for key in servers if key != name)
    servers[name] = entry
    data["mcpServers"] = servers
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    shown = json.dumps({name: entry}, indent=2, ensure_ascii=False)
    kept = f"{len(others)} other server(s) kept" + (f": {', '.join(others)}" if others else "")
    if args.dry_run:
        verb = "replace" if replaced else "add"
        return f"dry run: would {verb} server {name!r} in {path} ({kept}):\n{shown}"
    try:
        backup = _write_atomically(path, text)
    except OSError as error:  # a parent that is a file, no permission, a full disk
        raise InstallError(
            f"cannot write {path}: {_why(path, error)}; nothing was changed"
        ) from None
    lines = [f"{'replaced' if replaced else 'added'} server {name!r} in {path} ({kept}):", shown]
    if backup is not None:
        lines.append(f"backup of the previous file: {backup}")
    lines.append("restart the client to load it")
    return "\n".join(lines)
