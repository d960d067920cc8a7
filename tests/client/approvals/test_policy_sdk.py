"""`require_approval` read by toolwire beside openai-agents 0.24.0's MCP servers.

Each setting goes to the SDK's `MCPServerStdio` (never started: the policy is read by the
constructor) and to `ApprovalPolicy.resolve`. Either both refuse it with the same message, or
both give every tool of a small set the same `needs_approval`, predicates included (called the
way the SDK's runner calls them).
"""

from __future__ import annotations

import asyncio
import inspect
import types
from typing import Any

import pytest

from toolwire.client.approvals import ApprovalPolicy
from toolwire.errors import UserError

agents = pytest.importorskip("agents")
agents_mcp = pytest.importorskip("agents.mcp")
mcp_types = pytest.importorskip("mcp.types")

TOOL_NAMES = ("a", "b", "always", "never", "")


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


def _ask_a(ctx: Any, agent: Any, tool: Any) -> bool:
    return bool(tool.name == "a")


async def _ask_b_async(ctx: Any, agent: Any, tool: Any) -> bool:
    return bool(tool.name == "b")


def _truthy(ctx: Any, agent: Any, tool: Any) -> Any:
    return "yes" if tool.name != "never" else ""


SETTINGS: list[Any] = [
    None,
    "always",
    "never",
    True,
    False,
    "sometimes",
    "ALWAYS",
    " always",
    "",
    1,
    0,
    1.0,
    ["a"],
    ("a",),
    _Opaque(),
    {},
    {"a": "always"},
    {"a": "always", "b": "never"},
    {"a": True, "b": False},
    {"a": "bogus"},
    {"a": "bogus", "b": "worse"},
    {"a": None},
    {"a": 0},
    {"a": "Always"},
    {1: "always"},
    {1: "bogus"},
    {"always": "always"},
    {"never": "always", "a": "never"},
    {"always": ["a"]},
    {"always": {}},
    {"always": {"x": 1}},
    {"a": {"tool_names": []}},
    {"x": {"tool_names": ["a"]}},
    {"always": {"tool_names": ["a"]}},
    {"never": {"tool_names": ["a"]}},
    {"always": {"tool_names": ["a"]}, "never": {"tool_names": ["b"]}},
    {"always": {"tool_names": ["a", "a"]}},
    {"always": {"tool_names": ["a"], "x": 1}},
    {"always": {"tool_names": []}, "never": {}},
    {"always": {}, "never": {"tool_names": []}},
    {"always": {"tool_names": "a"}},
    {"always": {"tool_names": ("a",)}},
    {"always": {"tool_names": None}},
    {"always": {"tool_names": [1]}},
    {"always": {"tool_names": [None]}},
    {"always": {"tool_names": ["a", 2]}, "never": {"tool_names": ["a"]}},
    {"always": {"tool_names": [1]}, "never": {"tool_names": 5}},
    {"never": {"tool_names": 5}, "always": {"tool_names": ["a"]}},
    {"always": {"tool_names": ["a"]}, "never": {"tool_names": ["a", "b"]}},
    {"always": {"tool_names": ["b", "a", "c"]}, "never": {"tool_names": ["c", "a", "b"]}},
    {"always": {"tool_names": ["a"]}, "never": "never"},
    {"always": {"tool_names": ["a"]}, "never": None},
    {"never": {"tool_names": ["a"]}, "always": None},
    {"always": {"tool_names": ["a"]}, "a": "never"},
    {"always": {"tool_names": []}, "z": 1, "b": 2},
    {"always": {"tool_names": [1]}, "x": 1},
    {"always": {"tool_names": ["a"]}, 1: "x"},
    types.MappingProxyType({"a": "always"}),
    {"always": types.MappingProxyType({"tool_names": ["a"]})},
    _ask_a,
    _ask_b_async,
    _truthy,
]


def _remote(name: str) -> Any:
    return mcp_types.Tool(name=name, inputSchema={"type": "object", "properties": {}})


async def _settle(value: Any) -> Any:
    """A `needs_approval` as a plain answer: a predicate is called as the runner calls it."""
    if not callable(value):
        return ("fixed", value)
    answer = value(agents.RunContextWrapper(context=None), {}, "call_1")
    if inspect.isawaitable(answer):
        answer = await answer
    return ("per call", answer)


async def _sdk_outcome(setting: Any, agent: Any) -> Any:
    try:
        server = agents_mcp.MCPServerStdio(params={"command": "true"}, require_approval=setting)
    except Exception as error:  # the SDK raises its own UserError
        return ("refused", type(error).__name__, str(error))
    answers = {}
    for name in TOOL_NAMES:
        tool = agents_mcp.MCPUtil.to_function_tool(_remote(name), server, False, agent)
        answers[name] = await _settle(tool.needs_approval)
    return answers


async def _toolwire_outcome(setting: Any, agent: Any) -> Any:
    try:
        policy = ApprovalPolicy.resolve(setting, has_callback=False)
    except UserError as error:
        return ("refused", type(error).__name__, str(error))
    answers = {}
    for name in TOOL_NAMES:
        needs = policy.needs_approval_for(
            tool_name=name, annotations=None, agent=agent, remote_tool=_remote(name)
        )
        answers[name] = await _settle(needs)
    return answers


def _setting_id(setting: Any) -> str:
    """A test id that is the same in every process (a function's repr holds its address)."""
    return setting.__name__ if callable(setting) else repr(setting)


@pytest.mark.parametrize("with_agent", [True, False], ids=["agent", "no-agent"])
@pytest.mark.parametrize("setting", SETTINGS, ids=_setting_id)
def test_require_approval_matches_the_sdk(setting: Any, with_agent: bool) -> None:
    agent = agents.Agent(name="probe") if with_agent else None
    expected = asyncio.run(_sdk_outcome(setting, agent))
    assert asyncio.run(_toolwire_outcome(setting, agent)) == expected


def test_predicate_receives_the_agent_and_the_remote_tool() -> None:
    seen: list[tuple[Any, Any, str]] = []

    def record(ctx: Any, agent: Any, tool: Any) -> bool:
        seen.append((ctx, agent, tool.name))
        return True

    agent = agents.Agent(name="probe")
    policy = ApprovalPolicy.resolve(record, has_callback=False)
    needs = policy.needs_approval_for(
        tool_name="a", annotations=None, agent=agent, remote_tool=_remote("a")
    )
    assert asyncio.run(_settle(needs)) == ("per call", True)
    assert seen[0][1] is agent and seen[0][2] == "a"


def test_a_raising_predicate_propagates_like_the_sdk() -> None:
    def boom(ctx: Any, agent: Any, tool: Any) -> bool:
        raise RuntimeError("boom")

    agent = agents.Agent(name="probe")
    sdk = agents_mcp.MCPServerStdio(params={"command": "true"}, require_approval=boom)
    sdk_tool = agents_mcp.MCPUtil.to_function_tool(_remote("a"), sdk, False, agent)
    with pytest.raises(RuntimeError, match="boom"):
        asyncio.run(_settle(sdk_tool.needs_approval))
    ours = ApprovalPolicy.resolve(boom, has_callback=False).needs_approval_for(
        tool_name="a", annotations=None, agent=agent, remote_tool=_remote("a")
    )
    with pytest.raises(RuntimeError, match="boom"):
        asyncio.run(_settle(ours))
