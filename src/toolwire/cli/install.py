"""`toolwire install`: add a server to a client's MCP config, without uv and without loss.

The entry runs this environment's own interpreter (`sys.executable -m toolwire run TARGET`),
so the client needs nothing on its PATH. The existing file is merged, never replaced: other
servers stay, the old file is kept as a timestamped backup, an invalid file is refused, and
the new file is written atomically.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._target import split_target

if TYPE_CHECKING:
    from ..server import Server


class InstallError(Exception):
    """The config cannot be written; nothing was changed."""


def default_config_path(client: str) -> Path | None:
    """Where each client keeps its MCP servers (None: mcp-json prints instead)."""
    home = Path.home()
    if client == "claude-desktop":
        if sys.platform == "darwin":
            return home / "Library/Application Support/Claude/claude_desktop_config.json"
        if sys.platform == "win32":
            return Path(os.environ.get("APPDATA", home)) / "Claude/claude_desktop_config.json"
        return home / ".config/Claude/claude_desktop_config.json"
    if client == "cursor":
        return home / ".cursor/mcp.json"
    if client == "claude-code":
        return home / ".claude.json"  # user scope: top-level "mcpServers"
    return None


def _absolute_target(target: str) -> str:
    spec, attribute = split_target(target)
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        spec = str(Path(spec).resolve())
    return f"{spec}:{attribute}" if attribute else spec


def _env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InstallError(f"--env takes KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def server_entry(target: str, env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """The config entry that launches the server with this interpreter."""
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": ["-m", "toolwire", "run", _absolute_target(target)],
    }
    if not split_target(target)[0].endswith(".py"):
        entry["cwd"] = str(cwd)  # a module target is imported from here
    if env:
        entry["env"] = env
    return entry


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as error:
        raise InstallError(f"{path} is not valid JSON ({error}); fix or move it first") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} holds a {type(data).__name__}, not a JSON object")
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise InstallError(f'{path}: "mcpServers" is not a JSON object')
    return data


def _write_atomically(path: Path, text: str) -> Path | None:
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if path.exists():
        backup = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
        shutil.copy2(path, backup)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temp, path)
    return backup


def install(args: argparse.Namespace, server: Server) -> str:
    """Merge the entry into the client's config (or print it); return what happened."""
    name = args.name or server.name
    entry = server_entry(args.target, _env(args.env), Path.cwd())
    path = Path(args.config) if args.config else default_config_path(args.client)
    if path is None:  # mcp-json without --config: print a standalone config
        return json.dumps({"mcpServers": {name: entry}}, indent=2)
    data = _read(path)
    servers = dict(data.get("mcpServers", {}))
    replaced = name in servers
    servers[name] = entry
    data["mcpServers"] = servers
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if args.dry_run:
        return f"would write {path}:\n{text}"
    backup = _write_atomically(path, text)
    verb = "replaced" if replaced else "added"
    kept = len(servers) - 1
    lines = [f"{verb} server {name!r} in {path} ({kept} other server(s) kept)"]
    lines.append(f"  command: {entry['command']} {' '.join(entry['args'])}")
    if backup is not None:
        lines.append(f"  backup:  {backup}")
    return "\n".join(lines)
