"""Every code block in README.md and docs/*.md runs, so the documentation cannot go stale.

The convention, for whoever writes documentation (docs/README.md shows it in short):

- A fenced block's language decides what happens to it. `python`: run as a script in a
  subprocess (`python block.py`), in a scratch directory that belongs to the page. `json`:
  parsed. `bash`: checked with `bash -n`. `nginx`: wrapped in `events {} http { ... }` and
  checked with `nginx -t` where nginx is installed. `text`: shown only (layouts, output).
  Any other language fails the test, so nothing slips through unrun.
- An HTML comment right before a block, `<!-- docs: ... -->`, changes that (shell words):
  - `file=NAME`: write the block to NAME in the page's directory instead of running it
    (later blocks import it or serve it). A python file is still compiled.
  - `pytest`: with `file=`, run pytest on that file in a subprocess; it must pass.
  - `continues`: run this python block after the previous python block of the page, as one
    script (for a block that builds on the one before it).
  - `cwd=repo`: run the block in the repository's root instead (for examples that start the
    repository's demo server, as a reader who cloned it would).
  - `stdin=TEXT`: what the script reads on stdin (`\\n` for new lines); otherwise nothing.
  - `expect=TEXT` (repeatable): the block's stdout must contain TEXT.
  - `run`: run a bash block (cwd: the page's directory); it must exit 0.
  - `background`: start a bash block (a server) and keep it running until the page ends
    or the next `background` block; the next block waits until the page's port accepts
    connections.
  - `model=TOOL:JSON` (repeatable): point the OpenAI client at a scripted Responses endpoint
    on 127.0.0.1 whose first answer calls these tools; its second answer is a message
    quoting what the last tool returned. Agents SDK examples then run offline, unchanged.
- Port 8000 in a block is replaced by a free port chosen for the page, and HOME is the
  page's directory (so `toolwire install` never touches the real one). Nothing reaches the
  network beyond 127.0.0.1; tracing of Agents SDK runs is switched off by environment.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = {"python", "json", "bash", "nginx", "text"}
SCRIPT_SECONDS = 90
_FENCE = re.compile(r"^```(\S*)\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*docs:(.*?)-->\s*$")
_KNOWN = {"file", "pytest", "continues", "stdin", "expect", "run", "background", "model", "cwd"}


@dataclass
class Block:
    """One fenced block of a page and the directive before it."""

    page: Path
    line: int
    language: str
    text: str
    options: dict[str, list[str]] = field(default_factory=dict)

    def where(self) -> str:
        name = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{name}:{self.line}"

    def option(self, name: str) -> str | None:
        values = self.options.get(name)
        return values[-1] if values else None


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a page, in order, each with its `<!-- docs: -->` directive."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    pending: dict[str, list[str]] = {}
    index = 0
    while index < len(lines):
        directive = _DIRECTIVE.match(lines[index])
        fence = _FENCE.match(lines[index])
        if directive:
            pending = _parse_directive(directive.group(1), f"{page.name}:{index + 1}")
        elif fence:
            start = index
            body: list[str] = []
            index += 1
            while index < len(lines) and lines[index].rstrip() != "```":
                body.append(lines[index])
                index += 1
            found.append(Block(page, start + 1, fence.group(1), "\n".join(body) + "\n", pending))
            pending = {}
        elif lines[index].strip():
            pending = {}
        index += 1
    return found


def _parse_directive(text: str, where: str) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {}
    for word in shlex.split(text):
        key, _, value = word.partition("=")
        if key not in _KNOWN:
            raise ValueError(f"{where}: unknown docs directive {key!r} (known: {sorted(_KNOWN)})")
        options.setdefault(key, []).append(value.replace("\\n", "\n"))
    return options


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], where: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"{where}: the background command exited ({process.returncode})")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"{where}: nothing listened on port {port} within 60 s")


class ScriptedResponses:
    """A Responses API endpoint on 127.0.0.1 answering as a scripted model would.

    The first request of a run is answered with calls of the listed tools, the next one with
    a message quoting the output of the last call it was sent.
    """

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedResponses:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        given = request.get("input")
        items = given if isinstance(given, list) else []
        outputs = [item for item in items if item.get("type") == "function_call_output"]
        if not outputs:
            output: list[dict[str, Any]] = [
                {
                    "type": "function_call",
                    "id": f"fc_{number}",
                    "call_id": f"call_{number}",
                    "name": name,
                    "arguments": json.dumps(arguments),
                    "status": "completed",
                }
                for number, (name, arguments) in enumerate(self.calls)
            ]
        else:
            said = outputs[-1]["output"]
            if isinstance(said, list):
                said = " ".join(str(part.get("text", "")) for part in said)
            output = [
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": str(said), "annotations": []}],
                }
            ]
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": str(request.get("model", "scripted")),
            "status": "completed",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 1,
                "output_tokens": 1,
                "total_tokens": 2,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                body = json.dumps(outer.answer(request)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler


class Page:
    """A page's scratch directory, its port, and the background commands it started."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = _free_port()
        self.background: list[subprocess.Popen[bytes]] = []
        self.last_script = ""
        self.waiting: str | None = None
        self.written: list[str] = []

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        bin_dir = str(Path(sys.executable).parent)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        paths = [str(self.directory), str(ROOT / "src"), str(ROOT)]
        env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(":")
        env["HOME"] = str(self.directory)
        env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
        for name in ("PYTHONSAFEPATH", "XDG_CONFIG_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
            env.pop(name, None)
        return env

    def text(self, block: Block) -> str:
        return re.sub(r"\b8000\b", str(self.port), block.text)

    def ready(self) -> None:
        if self.waiting is not None and self.background:
            _wait_for_port(self.port, self.background[-1], self.waiting)
            self.waiting = None

    def stop(self) -> None:
        for process in self.background:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(10)
        self.background.clear()


def _run(block: Block, page: Page, argv: list[str], stdin: str = "", env: Any = None) -> str:
    where = block.option("cwd")
    assert where in (None, "repo"), f"{block.where()}: cwd= takes only 'repo', not {where!r}"
    try:
        done = subprocess.run(
            argv,
            check=False,
            cwd=ROOT if where == "repo" else page.directory,
            env=env or page.env(),
            input=stdin.encode(),
            capture_output=True,
            timeout=SCRIPT_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{block.where()}: still running after {SCRIPT_SECONDS} s") from exc
    out, err = done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
    assert done.returncode == 0, f"{block.where()}: exit {done.returncode}\n{out}\n{err}"
    for wanted in block.options.get("expect", []):
        assert wanted in out, f"{block.where()}: {wanted!r} not in its output:\n{out}\n{err}"
    return out


def _model_calls(block: Block) -> list[tuple[str, dict[str, Any]]]:
    calls = []
    for spec in block.options.get("model", []):
        name, _, arguments = spec.partition(":")
        calls.append((name, json.loads(arguments or "{}")))
    return calls


def _python(block: Block, page: Page) -> None:
    text = page.text(block)
    name = block.option("file")
    if name is not None:
        compile(text, f"{block.where()} ({name})", "exec")
        (page.directory / name).write_text(text, encoding="utf-8")
        if "pytest" in block.options:
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name]
            out = _run(block, page, command)
            assert " passed" in out, f"{block.where()}: pytest ran no test:\n{out}"
        return
    if "continues" in block.options:
        assert page.last_script, f"{block.where()}: `continues`, but no python block before it"
        text = page.last_script + "\n" + text
    page.last_script = text
    script = page.directory / f"block_{block.line}.py"
    script.write_text(text, encoding="utf-8")
    env = page.env()
    calls = _model_calls(block)
    if calls:
        with ScriptedResponses(calls) as model:
            env.update(OPENAI_BASE_URL=model.url, OPENAI_API_KEY="sk-docs-offline")
            _run(block, page, [sys.executable, str(script)], block.option("stdin") or "", env)
        return
    _run(block, page, [sys.executable, str(script)], block.option("stdin") or "", env)


def _bash(block: Block, page: Page) -> None:
    text = page.text(block)
    checked = subprocess.run(["bash", "-n"], check=False, input=text.encode(), capture_output=True)
    assert checked.returncode == 0, f"{block.where()}: {checked.stderr.decode()}"
    if "background" in block.options:
        page.stop()
        process = subprocess.Popen(
            ["bash", "-c", text],
            cwd=page.directory,
            env=page.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        page.background.append(process)
        page.waiting = block.where()
    elif "run" in block.options:
        _run(block, page, ["bash", "-e", "-c", text])


def _nginx(block: Block, page: Page) -> None:
    nginx = shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx",) if Path(path).exists()), None
    )
    if nginx is None:
        pytest.skip("nginx is not installed (scripts/install_system_tools.sh installs it)")
    conf = page.directory / f"nginx_{block.line}.conf"
    (page.directory / "logs").mkdir(exist_ok=True)
    conf.write_text(
        f"error_log {page.directory}/logs/error.log;\npid {page.directory}/nginx.pid;\n"
        f"events {{}}\nhttp {{\naccess_log off;\n{page.text(block)}}}\n",
        encoding="utf-8",
    )
    checked = subprocess.run(
        [nginx, "-t", "-q", "-p", str(page.directory), "-c", str(conf)],
        check=False,
        capture_output=True,
    )
    assert checked.returncode == 0, f"{block.where()}: {checked.stderr.decode()}"


def _cases() -> Iterator[Any]:
    for page in PAGES:
        yield pytest.param(page, id=str(page.relative_to(ROOT)))


def run_page(page: Path, directory: Path) -> None:
    """Run every block of `page` in order, with `directory` as its scratch directory."""
    state = Page(directory)
    try:
        for block in blocks_of(page):
            assert block.language in LANGUAGES, (
                f"{block.where()}: a ```{block.language} block; each block needs one of "
                f"{sorted(LANGUAGES)} (tests/docs/test_code_blocks.py says what each does)"
            )
            if block.language not in {"text", "nginx"}:
                state.ready()
            if block.language == "python":
                _python(block, state)
            elif block.language == "json":
                try:
                    json.loads(block.text)
                except ValueError as exc:
                    raise AssertionError(f"{block.where()}: not JSON: {exc}") from exc
            elif block.language == "bash":
                _bash(block, state)
            elif block.language == "nginx":
                _nginx(block, state)
    finally:
        state.stop()


@pytest.mark.timeout(900)
@pytest.mark.parametrize("page", list(_cases()))
def test_every_code_block_runs(page: Path, tmp_path: Path) -> None:
    assert blocks_of(page), f"{page.name} has no code blocks"
    run_page(page, tmp_path)


def test_directives_are_parsed_and_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n<!-- docs: file=a.py expect='two words' stdin='y\\n' -->\n```python\nx = 1\n```\n"
        "\n```bash\necho hi\n```\n",
        encoding="utf-8",
    )
    first, second = blocks_of(page)
    assert first.options == {"file": ["a.py"], "expect": ["two words"], "stdin": ["y\n"]}
    assert (first.language, first.text, first.line) == ("python", "x = 1\n", 4)
    assert (second.language, second.options) == ("bash", {})
    page.write_text("<!-- docs: flie=a.py -->\n```python\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown docs directive 'flie'"):
        blocks_of(page)


def test_the_scripted_model_drives_an_agent_offline(tmp_path: Path) -> None:
    """The Agents SDK, pointed at the scripted endpoint, calls the tool and quotes it."""
    script = tmp_path / "agent.py"
    script.write_text(
        "import asyncio\nfrom agents import Agent, Runner, function_tool\n\n"
        "@function_tool\ndef add(a: int, b: int) -> int:\n    return a + b\n\n"
        "agent = Agent(name='calc', tools=[add])\n"
        "print(asyncio.run(Runner.run(agent, 'add')).final_output)\n",
        encoding="utf-8",
    )
    page = Page(tmp_path)
    block = Block(tmp_path / "x.md", 1, "python", "", {"expect": ["42"]})
    with ScriptedResponses([("add", {"a": 40, "b": 2})]) as model:
        env = page.env()
        env.update(OPENAI_BASE_URL=model.url, OPENAI_API_KEY="sk-docs-offline")
        out = _run(block, page, [sys.executable, script.name], "", env)
    assert out.strip() == "42"


@pytest.mark.parametrize(
    ("block", "complaint"),
    [
        ('<!-- docs: expect=yes -->\n```python\nprint("no")\n```\n', "'yes' not in its output"),
        ("```python\nraise SystemExit(3)\n```\n", "exit 3"),
        ("```json\n{'a': 1}\n```\n", "not JSON"),
        ("```bash\nif then\n```\n", "syntax error"),
        ("<!-- docs: run -->\n```bash\nfalse\n```\n", "exit 1"),
        ("```py\nx = 1\n```\n", "a ```py block"),
        (
            "<!-- docs: file=t.py pytest -->\n```python\ndef test_x():\n    assert 0\n```\n",
            "exit 1",
        ),
    ],
)
def test_a_broken_block_fails_its_page(block: str, complaint: str, tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"# A page\n\n{block}", encoding="utf-8")
    with pytest.raises(AssertionError, match=re.escape(complaint)):
        run_page(page, tmp_path)


def test_a_background_server_answers_the_next_block(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs: background -->\n```bash\npython -m http.server 8000 --bind 127.0.0.1\n```\n"
        "\n<!-- docs: run expect=page.md -->\n```bash\ncurl -s http://127.0.0.1:8000/\n```\n",
        encoding="utf-8",
    )
    run_page(page, tmp_path)
