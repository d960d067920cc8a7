"""The files server's attack cases run against toolwire-files and the reference filesystem
server side by side, over stdio, each case on a fresh tree in a fresh process.

Run from the repository root (needs npm and Node 22, see scripts/install_node_tools.sh):

    .venv/bin/python -m tests.benchmarks.attack_files [--race 500]

A case passes when no reply holds the outside secret, nothing outside the served root was
created, changed or removed, and every call answered within 5 seconds. Prints one line per
case: PASS, or FAIL with what went wrong (secret read / outside changed / hang). The
case-variant link of the advisories needs a case-insensitive volume and is not run here.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.benchmarks._files_peers import Stdio, commands, text_of
from tests.servers.files._support import SECRET, add_traps, make_tree, outside_snapshot

CALL_SECONDS = 5.0
Case = Callable[[Stdio, Path], None]


class Hang(Exception):
    """A call did not answer in time."""


def call(server: Stdio, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        return server.call(name, arguments)
    except TimeoutError:
        raise Hang(f"{name} did not answer within {CALL_SECONDS:g} s") from None


class Leak(Exception):
    """A reply held the outside secret."""


class Forged(Exception):
    """A file's name read as more than one entry in the text a model reads."""


def read(server: Stdio, path: str, name: str = "read_text_file") -> None:
    reply = call(server, name, {"path": path})
    if SECRET in text_of(reply):
        raise Leak(f"{name}({path!r}) returned the outside secret")


def write(server: Stdio, path: str) -> None:
    call(server, "write_file", {"path": path, "content": "PWNED"})


def _paths(root: Path) -> dict[str, str]:
    base = root.parent
    return {
        "prefix sibling (CVE-2025-53110)": str(base / "root_evil" / "secret.txt"),
        "trailing-quote sibling root'": str(base / "root'" / "secret.txt"),
        "trailing-space sibling 'root '": str(base / "root " / "secret.txt"),
        "traversal root/../outside": f"{root}/../outside/secret.txt",
        "relative traversal ../outside": "../outside/secret.txt",
        "link to an outside file (CVE-2025-53109)": str(root / "link_file_out"),
        "link to an outside directory": str(root / "link_out" / "secret.txt"),
        "link to /": str(root / "link_slash" / base.relative_to("/") / "outside" / "secret.txt"),
        "hard link to an outside file": str(root / "hardlink.txt"),
        "NUL byte": str(root / "a.txt\x00") + "/../../outside/secret.txt",
        "/proc/self/root prefix": f"/proc/self/root{base}/outside/secret.txt",
    }


def read_case(path_key: str) -> Case:
    def run(server: Stdio, root: Path) -> None:
        path = _paths(root)[path_key]
        for name in ("read_text_file", "read_multiple_files", "get_file_info"):
            if name == "read_multiple_files":
                reply = call(server, name, {"paths": [path]})
                if SECRET in text_of(reply):
                    raise Leak(f"{name} returned the outside secret")
            else:
                read(server, path, name)

    return run


def write_case(target: str) -> Case:
    def run(server: Stdio, root: Path) -> None:
        write(server, str(root / target))

    return run


def special_case(target: str) -> Case:
    def run(server: Stdio, root: Path) -> None:
        read(server, str(root / target))

    return run


def roots_widen(server: Stdio, root: Path) -> None:
    read(server, str(root.parent / "outside" / "secret.txt"))


def race_case(operations: int) -> Case:
    def run(server: Stdio, root: Path) -> None:
        base = root.parent
        stop = threading.Event()

        def swap() -> None:
            while not stop.is_set():
                try:
                    os.rename(root / "sub", root / "sub.aside")
                    os.symlink(base / "outside", root / "sub")
                    time.sleep(0.0005)
                    os.unlink(root / "sub")
                    os.rename(root / "sub.aside", root / "sub")
                except OSError:
                    pass

        swapper = threading.Thread(target=swap, daemon=True)
        swapper.start()
        leaks = 0
        try:
            for i in range(operations):
                if i % 2:
                    reply = call(server, "read_text_file", {"path": str(root / "sub" / "b.txt")})
                    leaks += SECRET in text_of(reply)
                else:
                    write(server, str(root / "sub" / "w.txt"))
        finally:
            stop.set()
            swapper.join(5)
        if leaks:
            raise Leak(f"{leaks} of {operations // 2} reads returned the outside secret")

    return run


def forged_listing(server: Stdio, root: Path) -> None:
    (root / "sub" / "notes\n[FILE] passwords.txt").write_text("x")
    for name in ("list_directory", "list_directory_with_sizes"):
        reply = call(server, name, {"path": str(root / "sub")})
        result = reply.get("result", {})
        # The listing's text, as both servers put it in `structuredContent.content`.
        blocks = result.get("content") or [{}]
        text = str((result.get("structuredContent") or {}).get("content") or blocks[0].get("text"))
        if any(line.startswith("[FILE] passwords.txt") for line in text.splitlines()):
            raise Forged(f"{name} listed a file named 'passwords.txt' that does not exist")


def move_swap(server: Stdio, root: Path) -> None:
    source = root / "src.txt"
    (root / "moved").mkdir()
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            try:
                source.write_text("inside")
                os.unlink(source)
                os.symlink(root.parent / "outside" / "secret.txt", source)
                os.unlink(source)
            except OSError:
                pass

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    try:
        for i in range(100):
            call(
                server,
                "move_file",
                {"source": str(source), "destination": str(root / "moved" / f"{i}")},
            )
    finally:
        stop.set()
        swapper.join(5)


CASES: list[tuple[str, Case, dict[str, Any]]] = [
    *[(key, read_case(key), {}) for key in _paths(Path("/r/root"))],
    ("dangling link out, then write", write_case("dangling_out"), {}),
    ("dangling relative link out, then write", write_case("dangling_out_rel"), {}),
    ("write through a hard link to outside", write_case("hardlink.txt"), {}),
    ("read a FIFO", special_case("fifo"), {}),
    ("read a character device (/dev/zero twin)", special_case("zero"), {}),
    ("read a link to /dev/zero", special_case("link_zero"), {}),
    ("read a link loop", special_case("loop_a"), {}),
    ("client roots try to widen to /", roots_widen, {"roots": ["file:///"]}),
    ("move_file source swapped for a link", move_swap, {}),
    ("a name with a line break forges a listing entry", forged_listing, {}),
]


def run_case(argv: list[str], case: Case, options: dict[str, Any]) -> str:
    with tempfile.TemporaryDirectory(prefix="attack-files-") as scratch:
        root = make_tree(Path(scratch))
        add_traps(root)
        (root.parent / "outside" / "b.txt").write_text(SECRET)  # what the race tries to read
        before = outside_snapshot(root.parent)
        command = [part.replace("{ROOT}", str(root)) for part in argv]
        server = Stdio(command, timeout=CALL_SECONDS, roots=options.get("roots"))
        verdict = "PASS"
        try:
            server.handshake()
            server.ask("tools/list", {})
            time.sleep(0.3)  # a server that asks for roots after `initialized` has them now
            server.ask("tools/list", {})
            case(server, root)
        except Hang as error:
            verdict = f"FAIL hang: {error}"
        except Leak as error:
            verdict = f"FAIL secret read: {error}"
        except Forged as error:
            verdict = f"FAIL forged: {error}"
        except (EOFError, OSError) as error:
            verdict = f"FAIL server died: {error}"
        finally:
            server.close()
        if outside_snapshot(root.parent) != before:
            changed = "outside changed"
            verdict = f"FAIL {changed}" if verdict == "PASS" else f"{verdict}; {changed}"
        return verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--race", type=int, default=500, help="operations in the race case")
    options = parser.parse_args()
    cases = [
        *CASES,
        (f"parent swapped for a link ({options.race} reads/writes)", race_case(options.race), {}),
    ]
    with tempfile.TemporaryDirectory(prefix="attack-files-ref-") as scratch:
        argvs = commands(Path(scratch), Path("{ROOT}"))
        results: dict[str, dict[str, str]] = {}
        for label, case, extra in cases:
            results[label] = {server: run_case(argv, case, extra) for server, argv in argvs.items()}
    width = max(len(label) for label in results)
    print(f"{'case':{width}}  {'toolwire-files':14}  reference")
    for label, verdicts in results.items():
        ours, theirs = verdicts["toolwire-files"], verdicts["reference"]
        print(f"{label:{width}}  {ours.split(':')[0]:14}  {theirs}")
    passed = {server: sum(v[server] == "PASS" for v in results.values()) for server in argvs}
    print(
        f"passed: toolwire-files {passed['toolwire-files']}/{len(results)}, reference {passed['reference']}/{len(results)}"
    )


if __name__ == "__main__":
    main()
