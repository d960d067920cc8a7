"""The adapter's public surface is the Agents SDK's: same parameters, order, defaults, messages."""

from __future__ import annotations

import inspect
import math
from typing import Any

import pytest

import toolwire
from toolwire.client import params

SERVER_CLASSES = ["MCPServerStdio", "MCPServerSse", "MCPServerStreamableHttp"]
PARAMS = {
    "MCPServerStdio": {"command": "x"},
    "MCPServerSse": {"url": "http://127.0.0.1:1/sse"},
    "MCPServerStreamableHttp": {"url": "http://127.0.0.1:1/mcp"},
}
TOOLWIRE_EXTRAS = {
    "protocol_mode",
    "prefix_tool_names",
    "connect_timeout_seconds",
    "elicitation_callback",
    "sampling_callback",
    "logging_callback",
    "list_roots_callback",
    "headers_provider",
    "bearer_token",
    "errlog",
    "on_approval_request",
}


def _shape(parameter: inspect.Parameter) -> tuple[str, Any, Any]:
    default = parameter.default
    if type(default).__name__ in {"_UnsetType", "object"}:
        default = "<unset>"
    return parameter.name, parameter.kind, default


@pytest.mark.parametrize("name", SERVER_CLASSES)
def test_constructor_matches_the_sdk(name: str) -> None:
    import agents.mcp

    ours = inspect.signature(getattr(toolwire, name)).parameters
    theirs = inspect.signature(getattr(agents.mcp, name)).parameters
    sdk = [_shape(p) for p in theirs.values()]
    mine = [_shape(p) for p in ours.values() if p.name not in TOOLWIRE_EXTRAS]
    assert mine == sdk
    extras = [p for p in ours.values() if p.name in TOOLWIRE_EXTRAS]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in extras)


@pytest.mark.parametrize("method", ["call_tool", "list_prompts", "get_prompt"])
def test_methods_take_the_sdks_parameters_then_keyword_only_extras(method: str) -> None:
    import agents.mcp

    ours = inspect.signature(getattr(toolwire.MCPServerStdio, method)).parameters
    theirs = inspect.signature(getattr(agents.mcp.MCPServerStdio, method)).parameters
    sdk = [_shape(p) for p in theirs.values()]
    shared = [_shape(p) for p in ours.values() if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    assert shared == sdk


@pytest.mark.parametrize(
    "name",
    [
        "MCPServerStdioParams",
        "MCPServerSseParams",
        "MCPServerStreamableHttpParams",
        "ToolFilterStatic",
    ],
)
def test_params_have_the_sdks_keys(name: str) -> None:
    import agents.mcp

    ours = getattr(params, name)
    theirs = getattr(agents.mcp, name)
    assert set(ours.__annotations__) == set(theirs.__annotations__)
    assert ours.__required_keys__ == theirs.__required_keys__


def test_manager_matches_the_sdk() -> None:
    import agents.mcp

    ours = inspect.signature(toolwire.MCPServerManager).parameters
    theirs = inspect.signature(agents.mcp.MCPServerManager).parameters
    mine = [_shape(p) for p in ours.values() if p.name != "on_approval_request"]
    assert mine == [_shape(p) for p in theirs.values()]
    extra = ours["on_approval_request"]
    assert (extra.kind, extra.default) == (inspect.Parameter.KEYWORD_ONLY, None)


def test_in_memory_takes_the_server_then_the_other_classes_parameters() -> None:
    from toolwire.client import MCPServerInMemory

    ours = list(inspect.signature(MCPServerInMemory).parameters.values())
    stdio = list(inspect.signature(toolwire.MCPServerStdio).parameters.values())
    assert ours[0].name == "server"
    shared = [p for p in stdio[1:] if p.name != "errlog"]
    assert [_shape(p) for p in ours[1:]] == [_shape(p) for p in shared]


@pytest.mark.parametrize(
    "allowed, blocked", [(None, None), (["a"], None), (None, []), (["a"], ["b"])]
)
def test_static_filter_helper(allowed: Any, blocked: Any) -> None:
    import agents.mcp

    assert toolwire.create_static_tool_filter(allowed, blocked) == (
        agents.mcp.create_static_tool_filter(allowed, blocked)
    )


BAD_SETTINGS: list[dict[str, Any]] = [
    {"client_session_timeout_seconds": -1},
    {"client_session_timeout_seconds": "x"},
    {"client_session_timeout_seconds": math.nan},
    {"client_session_timeout_seconds": True},
    {"client_session_timeout_seconds": 1e300},
    {"retry_backoff_seconds_max": -1},
    {"retry_backoff_seconds_max": math.inf},
    {"max_list_pages": 0},
    {"max_list_pages": 1.5},
    {"max_list_pages": True},
    {"require_approval": "sometimes"},
    {"require_approval": {"always": {"tool_names": ["a"]}, "never": {"tool_names": ["a"]}}},
    {"require_approval": {"always": {"tool_names": ["a"]}, "x": {}}},
]


def _outcome(make: Any, **kwargs: Any) -> tuple[str, str]:
    try:
        make(**kwargs)
    except Exception as error:
        return type(error).__name__, str(error)
    return "ok", ""


@pytest.mark.parametrize("name", SERVER_CLASSES)
@pytest.mark.parametrize("setting", BAD_SETTINGS, ids=repr)
def test_bad_settings_fail_as_in_the_sdk(name: str, setting: dict[str, Any]) -> None:
    import agents.mcp

    mine = _outcome(getattr(toolwire, name), params=PARAMS[name], **setting)
    theirs = _outcome(getattr(agents.mcp, name), params=PARAMS[name], **setting)
    assert mine == theirs
    assert mine[0] != "ok"


@pytest.mark.parametrize("name", [*SERVER_CLASSES, "MCPServerInMemory"])
def test_protocol_mode_names_an_era_and_refuses_the_old_legacy_value(name: str) -> None:
    make = getattr(toolwire, name)
    params = PARAMS.get(name, toolwire.Server("s"))
    assert [make(params, protocol_mode=mode).protocol_mode for mode in ("auto", "handshake")] == [
        "auto",
        "handshake",
    ]
    assert make(params).protocol_mode == "auto"
    kind, message = _outcome(lambda: make(params, protocol_mode="legacy"))
    assert kind == "ValueError"
    assert 'protocol_mode="handshake"' in message and "legacy" in message
    for bad in ("Handshake", "2025-11-25", "", None, 1):
        kind, message = _outcome(lambda mode=bad: make(params, protocol_mode=mode))
        assert (kind, message) == (
            "ValueError",
            f'protocol_mode must be "auto", "handshake" or "modern", not {bad!r}.',
        )


@pytest.mark.parametrize("name", SERVER_CLASSES)
def test_default_names_and_public_attributes(name: str) -> None:
    import agents.mcp

    ours = getattr(toolwire, name)(params=PARAMS[name])
    theirs = getattr(agents.mcp, name)(params=PARAMS[name])
    assert ours.name == theirs.name
    for attribute in [
        "cache_tools_list", "client_session_timeout_seconds", "tool_filter",
        "use_structured_content", "max_retry_attempts", "retry_backoff_seconds_base",
        "retry_backoff_seconds_max", "message_handler", "tool_meta_resolver",
        "custom_data_extractor", "tool_input_guardrails", "tool_output_guardrails",
        "max_list_pages", "cached_tools",
    ]:  # fmt: skip
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute


def test_not_connected_is_the_sdks_user_error() -> None:
    from tests.client._support import bounded

    server = toolwire.MCPServerStdio(params={"command": "x"})

    async def main() -> list[str]:
        seen = []
        for call in (
            server.list_tools(),
            server.call_tool("a", {}),
            server.list_prompts(),
            server.get_prompt("p"),
            server.list_resources(),
            server.read_resource("x://y"),
        ):
            with pytest.raises(toolwire.UserError) as caught:
                await call
            seen.append(str(caught.value))
        return seen

    assert set(bounded(main)) == {"Server not initialized. Make sure you call `connect()` first."}


def test_import_toolwire_client_names_loads_no_mcp() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, toolwire\n"
        "toolwire.MCPServerStdio(params={'command': 'x'}); toolwire.MCPServerManager([])\n"
        "print(sorted(m for m in ('mcp', 'mcp_types', 'httpx2', 'agents') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", SERVER_CLASSES)
@pytest.mark.parametrize(
    "setting, named",
    [
        ({"max_retry_attempts": "3"}, "max_retry_attempts"),
        ({"max_retry_attempts": -2}, "max_retry_attempts"),
        ({"max_retry_attempts": True}, "max_retry_attempts"),
        ({"retry_backoff_seconds_base": "1"}, "retry_backoff_seconds_base"),
        ({"retry_backoff_seconds_base": math.nan}, "retry_backoff_seconds_base"),
        ({"connect_timeout_seconds": 0}, "connect_timeout_seconds"),
        ({"connect_timeout_seconds": "5"}, "connect_timeout_seconds"),
        ({"connect_timeout_seconds": math.inf}, "connect_timeout_seconds"),
    ],
    ids=repr,
)
def test_bad_retry_and_connect_settings_fail_where_they_are_given(
    name: str, setting: dict[str, Any], named: str
) -> None:
    # The SDK takes these as given and fails (or spins) at the first retry; toolwire says which
    # setting is wrong when the server object is made.
    kind, message = _outcome(getattr(toolwire, name), params=PARAMS[name], **setting)
    assert kind == "ValueError"
    assert message.startswith(f"{named} must be ") and repr(next(iter(setting.values()))) in message


@pytest.mark.parametrize("name", SERVER_CLASSES)
def test_good_retry_and_connect_settings_are_kept(name: str) -> None:
    made = getattr(toolwire, name)(
        params=PARAMS[name],
        max_retry_attempts=-1,
        retry_backoff_seconds_base=-2,
        connect_timeout_seconds=2.5,
    )
    assert (made.max_retry_attempts, made.retry_backoff_seconds_base) == (-1, 0.0)
    assert made.connect_timeout_seconds == 2.5


STDIO_PARAMS_REFUSED: list[tuple[Any, str, str]] = [
    (
        None,
        "TypeError",
        "MCPServerStdio params must be a dict (MCPServerStdioParams), not NoneType",
    ),
    ("npx server", "TypeError", "MCPServerStdio params must be a dict"),
    ({}, "KeyError", "\"MCPServerStdio params need a 'command'\""),
    ({"command": 5}, "ValueError", "MCPServerStdio params: 'command' must be a string, not int"),
    ({"command": "x", "args": "-y server"}, "ValueError", "'args' must be a list of strings"),
    ({"command": "x", "args": [1]}, "ValueError", "'args' must hold strings only"),
    ({"command": "x", "env": ["A=1"]}, "ValueError", "'env' must be a dict of strings"),
    ({"command": "x", "env": {"A": 1}}, "ValueError", "'env' must be a dict of strings"),
    ({"command": "x", "cwd": 5}, "ValueError", "'cwd' must be a path, not int"),
    ({"command": "x", "encoding": 8}, "ValueError", "'encoding' must be a string, not int"),
]


@pytest.mark.parametrize(("given", "kind", "message"), STDIO_PARAMS_REFUSED, ids=repr)
def test_stdio_params_the_sdk_refuses_when_made_are_refused_when_made(
    given: Any, kind: str, message: str
) -> None:
    """They were taken, and `connect()` raised a bare KeyError or TypeError, or a failure to
    connect that named no key; the SDK refuses each when the object is made (its own errors:
    a subscript TypeError, a KeyError, a pydantic error, a ValueError)."""
    import agents.mcp

    theirs = _outcome(agents.mcp.MCPServerStdio, params=given)
    assert theirs[0] != "ok"
    mine = _outcome(toolwire.MCPServerStdio, params=given)
    assert mine[0] == kind
    assert message in mine[1]
    sdk_kind = {"TypeError": "TypeError", "KeyError": "KeyError", "ValueError": "ValidationError"}
    assert theirs[0] == sdk_kind[kind]


@pytest.mark.parametrize(
    "given",
    [
        {"command": "x", "args": ("a", "b")},
        {"command": "x", "cwd": __import__("pathlib").Path("/tmp")},
        {"command": "x", "env": {}, "encoding": "latin-1"},
        {"command": b"x", "args": [b"a"], "cwd": b"/tmp"},
    ],
    ids=repr,
)
def test_stdio_params_the_sdk_takes_are_taken(given: Any) -> None:
    import agents.mcp

    assert _outcome(agents.mcp.MCPServerStdio, params=given) == ("ok", "")
    assert _outcome(toolwire.MCPServerStdio, params=given) == ("ok", "")
