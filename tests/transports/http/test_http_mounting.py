"""`server.http_app()` mounted inside a Starlette or a FastAPI app: the server's lifespan runs
exactly once, whether the parent runs the app's lifespan or the first request starts it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from _http_harness import serving
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from toolwire import Server, ToolContext


def make_server(events: list[str]) -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        events.append("enter")
        yield {"db": "connected"}
        events.append("exit")

    server = Server("mounted", version="1.0", lifespan=lifespan)

    @server.tool
    def state(ctx: ToolContext[Any]) -> str:
        """What the lifespan yielded."""
        return str(ctx.context["db"])

    return server


async def call_state(url: str) -> str:
    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("state", {})
        return str(result.content[0].text)  # type: ignore[union-attr]


def hello(request: Any) -> PlainTextResponse:
    return PlainTextResponse("hello")


@pytest.mark.parametrize("parent_runs_lifespan", [False, True], ids=["lazy", "parent-lifespan"])
def test_mounted_in_starlette(parent_runs_lifespan: bool) -> None:
    events: list[str] = []
    mcp_app = make_server(events).http_app()
    parent = Starlette(
        routes=[Route("/hello", hello), Mount("/tools", app=mcp_app)],
        lifespan=mcp_app.lifespan if parent_runs_lifespan else None,
    )
    with serving(parent) as base:
        if parent_runs_lifespan:
            assert events == ["enter"]  # started up front
        assert asyncio.run(asyncio.wait_for(call_state(base + "/tools/mcp"), 30)) == "connected"
        assert httpx2.get(base + "/hello").text == "hello"
        assert events == ["enter"]
    if parent_runs_lifespan:
        assert events == ["enter", "exit"]


@pytest.mark.parametrize("parent_runs_lifespan", [False, True], ids=["lazy", "parent-lifespan"])
def test_mounted_in_fastapi(parent_runs_lifespan: bool) -> None:
    from fastapi import FastAPI

    events: list[str] = []
    mcp_app = make_server(events).http_app()
    parent = FastAPI(lifespan=mcp_app.lifespan if parent_runs_lifespan else None)

    @parent.get("/hello")
    def fastapi_hello() -> dict[str, str]:
        return {"hello": "world"}

    parent.mount("/agent", mcp_app)
    with serving(parent) as base:
        assert asyncio.run(asyncio.wait_for(call_state(base + "/agent/mcp"), 30)) == "connected"
        assert httpx2.get(base + "/hello").json() == {"hello": "world"}
        assert events == ["enter"]
    if parent_runs_lifespan:
        assert events == ["enter", "exit"]


def test_standalone_runs_the_lifespan_once() -> None:
    events: list[str] = []
    with serving(make_server(events).http_app(path="/")) as base:
        assert events == ["enter"]
        assert asyncio.run(asyncio.wait_for(call_state(base + "/"), 30)) == "connected"
        assert asyncio.run(asyncio.wait_for(call_state(base + "/"), 30)) == "connected"
    assert events == ["enter", "exit"]


def test_other_paths_are_starlette_404s() -> None:
    with serving(make_server([]).http_app()) as base:
        reply = httpx2.get(base + "/elsewhere")
    assert (reply.status_code, reply.text) == (404, "Not Found")
