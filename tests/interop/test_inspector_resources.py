"""The MCP Inspector CLI lists and reads a toolwire server's resources, over stdio, streamable
HTTP and the legacy SSE transport (tests/interop/servers/library.py)."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.interop._inspector import first_json, run_inspector
from tests.interop._served_http import served_http
from tests.interop._support import SERVERS

LIBRARY = SERVERS / "library.py"
TARGETS = ["stdio", "http", "sse"]


@pytest.fixture(scope="module", params=TARGETS)
def target(request: pytest.FixtureRequest) -> Iterator[list[str]]:
    if request.param == "stdio":
        yield [sys.executable, str(LIBRARY)]
        return
    path = "/mcp" if request.param == "http" else "/sse"
    with served_http(request.param, target=LIBRARY) as server:
        yield [server.base + path, "--transport", request.param]


def _inspect(inspector: Path, target: list[str], *args: str) -> dict[str, Any]:
    payload = first_json(run_inspector(inspector, target, *args))
    assert set(payload) == {"result"}, payload
    return dict(payload["result"])


def test_resources_list(inspector_cli: Path, target: list[str]) -> None:
    listed = _inspect(inspector_cli, target, "--method", "resources/list")
    by_uri = {item["uri"]: item for item in listed["resources"]}
    assert set(by_uri) == {
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "file:///docs/readme.md",
        "file:///docs/guide/intro.txt",
    }
    assert by_uri["test://static-text"]["mimeType"] == "text/plain"
    templates = _inspect(inspector_cli, target, "--method", "resources/templates/list")
    assert {t["uriTemplate"] for t in templates["resourceTemplates"]} == {
        "test://template/{id}/data",
        "file:///docs/{+path}",
    }


def test_resources_read(inspector_cli: Path, target: list[str]) -> None:
    read = ("--method", "resources/read", "--uri")
    text = _inspect(inspector_cli, target, *read, "test://static-text")
    assert text["contents"] == [
        {
            "uri": "test://static-text",
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource.",
        }
    ]
    data = _inspect(inspector_cli, target, *read, "test://template/42/data")
    assert json.loads(data["contents"][0]["text"])["data"] == "Data for ID: 42"
    blob = _inspect(inspector_cli, target, *read, "test://static-binary")
    assert base64.b64decode(blob["contents"][0]["blob"]).startswith(b"\x89PNG")
    doc = _inspect(inspector_cli, target, *read, "file:///docs/readme.md")
    assert doc["contents"][0]["text"].startswith("# Library")
