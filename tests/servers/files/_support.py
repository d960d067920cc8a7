"""The files server in-process behind a real protocol session, a tree to attack, and a
snapshot of everything outside the served root."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
from toolwire_files._access import DEFAULT_DENY, Access, Limits
from toolwire_files.server import build_server

from toolwire.paths import Root
from toolwire.server import Server

SECRET = "TOP-SECRET-outside-6d1c"
SIBLINGS = ("outside", "root_evil", "root'", "root ", "root\t", "ROOT")
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}


def make_tree(base: Path) -> Path:
    """base/root (served) with ordinary files; siblings holding the secret; returns the root."""
    root = base / "root"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "sub" / "b.txt").write_text("inside b\n")
    (root / "sub" / "deep" / "c.py").write_text("def f():\n    return 1\n")
    (root / ".env").write_text("TOKEN=inside-but-denied\n")
    for sibling in SIBLINGS:
        (base / sibling).mkdir()
        (base / sibling / "secret.txt").write_text(SECRET)
    return root


def add_traps(root: Path) -> None:
    """Links out, dangling links, loops, a FIFO, a device, a hard link to the secret."""
    base = root.parent
    os.symlink(base / "outside", root / "link_out")
    os.symlink("../outside", root / "link_out_rel")
    os.symlink(base / "outside" / "secret.txt", root / "link_file_out")
    os.symlink(base / "outside" / "created.txt", root / "dangling_out")
    os.symlink("../outside/created_rel.txt", root / "dangling_out_rel")
    os.symlink("/", root / "link_slash")
    os.symlink("..", root / "sub" / "up")
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink("/dev/zero", root / "link_zero")
    os.mkfifo(root / "fifo")
    with suppress(PermissionError):
        os.mknod(root / "zero", 0o20666, os.makedev(1, 5))
    os.link(base / "outside" / "secret.txt", root / "hardlink.txt")


def outside_snapshot(base: Path) -> dict[str, Any]:
    """Every name under `base` outside `base/root`, with content (files) or target (links)."""
    seen: dict[str, Any] = {}
    for directory, dirs, files in os.walk(base):
        if Path(directory) == base:
            dirs[:] = [d for d in dirs if d != "root"]
        for name in dirs + files:
            path = Path(directory) / name
            if path.is_symlink():
                seen[str(path)] = ("link", os.readlink(path))
            elif path.is_file():
                seen[str(path)] = ("file", path.read_bytes())
            else:
                seen[str(path)] = ("dir",)
    return seen


def build(
    *directories: Path,
    read_only: bool = False,
    read_only_dirs: tuple[Path, ...] = (),
    deny: tuple[str, ...] = DEFAULT_DENY,
    limits: Limits | None = None,
    allow_hard_links: bool = False,
    client_roots: str = "narrow",
) -> Server:
    """The server as `toolwire-files` builds it."""
    roots = [Root(d, read_only=read_only, allow_hard_links=allow_hard_links) for d in directories]
    roots += [Root(d, read_only=True, allow_hard_links=allow_hard_links) for d in read_only_dirs]
    access = Access(roots, deny, limits or Limits(), client_roots)
    return build_server(access, read_only=read_only)


class Client:
    """The client end of an in-process session: requests by id, answers to `roots/list`."""

    def __init__(self, roots: list[str] | None, modern: bool) -> None:
        self.roots = roots
        self.modern = modern
        self.session: Any = None
        self.replies: dict[Any, dict[str, Any]] = {}
        self.events: dict[Any, anyio.Event] = {}
        self.roots_asked = 0
        self.next_id = 100
        self.group: Any = None

    async def send(self, frame: bytes) -> None:
        message = json.loads(frame)
        if message.get("method") == "roots/list" and "id" in message:
            self.roots_asked += 1
            answer = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {"roots": [{"uri": uri} for uri in self.roots or []]},
            }
            self.group.start_soon(self.session.receive, json.dumps(answer).encode())
            return
        if "id" in message and "method" not in message:
            self.replies[message["id"]] = message
            event = self.events.get(message["id"])
            if event is not None:
                event.set()

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        request_id = self.next_id
        if self.modern:
            params = {**params, "_meta": ENVELOPE}
        event = self.events[request_id] = anyio.Event()
        frame = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        with anyio.fail_after(20):
            await self.session.receive(json.dumps(frame).encode())
            await event.wait()
        del self.events[request_id]
        return self.replies.pop(request_id)

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The `tools/call` result (an error reply fails the test)."""
        reply = await self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in reply, reply
        return dict(reply["result"])

    async def tools(self) -> dict[str, dict[str, Any]]:
        reply = await self.request("tools/list", {})
        return {tool["name"]: tool for tool in reply["result"]["tools"]}


@asynccontextmanager
async def connected(
    server: Server, roots: list[str] | None = None, *, modern: bool = False
) -> AsyncIterator[Client]:
    """A session with `server`: handshake era by default, declaring `roots` when given."""
    client = Client(roots, modern)
    async with anyio.create_task_group() as group:
        client.group = group
        async with server.serving() as open_session, open_session(client.send) as session:
            client.session = session
            if not modern:
                capabilities = {"roots": {"listChanged": True}} if roots is not None else {}
                reply = await client.request(
                    "initialize",
                    {
                        "protocolVersion": "2025-11-25",
                        "capabilities": capabilities,
                        "clientInfo": {"name": "test", "version": "1"},
                    },
                )
                assert "result" in reply, reply
                frame = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                await session.receive(json.dumps(frame).encode())
            yield client
            session.close()
        group.cancel_scope.cancel()


def text_of(result: dict[str, Any]) -> str:
    """The first text block."""
    return str(result["content"][0]["text"])


def structured(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result
    return dict(result["structuredContent"])
