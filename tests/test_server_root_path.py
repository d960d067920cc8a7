"""`Server.root_path`: where relative paths given to a server are taken from.

A client starts a server in whatever directory it likes (Claude Desktop: `/`), so a relative
`add_directory_resources("docs")` must not depend on it. Each case runs a real interpreter
in a directory other than the server module's and reads a file through the client adapter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_READ = textwrap.dedent(
    """
    import asyncio, sys
    from toolwire.client import MCPServerInMemory
    {setup}
    async def main():
        async with MCPServerInMemory(server) as client:
            answer = await client.read_resource("docs://note.md")
            print(answer.contents[0].text)
            print(server.root_path)
    asyncio.run(main())
    """
)


def _run(code: str, cwd: Path, *paths: Path) -> list[str]:
    env_path = ":".join(str(path) for path in (ROOT / "src", *paths))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    package = tmp_path / "app"
    (package / "docs").mkdir(parents=True)
    (package / "docs" / "note.md").write_text("from the module's folder", encoding="utf-8")
    (package / "todo_server.py").write_text(
        "from toolwire import Server\n"
        "server = Server('todo')\n"
        "server.add_directory_resources('docs', 'docs://')\n",
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "docs").mkdir(parents=True)
    (elsewhere / "docs" / "note.md").write_text("from the working directory", encoding="utf-8")
    return package, elsewhere


def test_a_relative_directory_is_taken_from_the_module_that_builds_the_server(
    tmp_path: Path,
) -> None:
    package, elsewhere = _layout(tmp_path)
    lines = _run(_READ.format(setup="from todo_server import server"), elsewhere, package)
    assert lines == ["from the module's folder", str(package.resolve())]


def test_an_explicit_root_path_wins(tmp_path: Path) -> None:
    package, elsewhere = _layout(tmp_path)
    setup = (
        "from toolwire import Server\n"
        f"server = Server('todo', root_path={str(elsewhere)!r})\n"
        "server.add_directory_resources('docs', 'docs://')"
    )
    lines = _run(_READ.format(setup=setup), package)
    assert lines == ["from the working directory", str(elsewhere.resolve())]


def test_code_without_a_file_falls_back_to_the_working_directory(tmp_path: Path) -> None:
    _package, elsewhere = _layout(tmp_path)
    setup = (
        "from toolwire import Server\n"
        "server = Server('todo')\n"
        "server.add_directory_resources('docs', 'docs://')"
    )
    lines = _run(_READ.format(setup=setup), elsewhere)
    assert lines == ["from the working directory", str(elsewhere.resolve())]
