"""Each failed call is logged once, at WARNING on `toolwire.tools`, by whoever answers it.

The records are read with pytest's `caplog`; what reaches a real server's stderr is tested in
tests/transports/stdio/test_failed_call_logging.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from toolwire import FunctionTool, ToolContext, function_tool
from toolwire.tools.invoke import invoke_function_tool, invoke_tool

GENERIC = "An error occurred while running the tool. Please try again."
SECRET = "sk-live-7f3a9c"


@pytest.fixture(autouse=True)
def _redacted(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv("TOOLWIRE_LOG_TOOL_DATA", raising=False)
    monkeypatch.delenv("OPENAI_AGENTS_DONT_LOG_TOOL_DATA", raising=False)
    caplog.set_level(logging.WARNING, logger="toolwire")


def _ctx(name: str, arguments: str) -> ToolContext[Any]:
    return ToolContext(None, tool_name=name, tool_call_id="c1", tool_arguments=arguments)


def _records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("toolwire")]


def _upload(path: str, token: str) -> str:
    raise OSError("disk full")


ARGUMENTS = json.dumps({"path": "/srv/a", "token": SECRET})


def test_an_answered_failure_is_logged_once_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tool = function_tool(_upload)
    assert asyncio.run(tool.on_invoke_tool(_ctx("_upload", ARGUMENTS), ARGUMENTS)) == GENERIC
    (record,) = _records(caplog)
    assert record.levelno == logging.WARNING and record.name == "toolwire.tools"
    assert record.getMessage() == "Tool '_upload' failed: OSError: disk full"
    assert record.exc_info is not None and isinstance(record.exc_info[1], OSError)
    assert SECRET not in caplog.text


def test_a_custom_failure_function_is_logged_the_same_way(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tool = function_tool(_upload, failure_error_function=lambda ctx, error: f"no: {error}")
    outcome = asyncio.run(invoke_tool(tool, _ctx("_upload", ARGUMENTS), ARGUMENTS))
    assert (outcome.output, outcome.is_error) == ("no: disk full", True)
    assert [r.getMessage() for r in _records(caplog)] == [
        "Tool '_upload' failed: OSError: disk full"
    ]


def test_a_failure_left_to_the_caller_is_not_logged_until_someone_answers_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tool = function_tool(_upload, failure_error_function=None)
    with pytest.raises(OSError, match="disk full"):
        asyncio.run(tool.on_invoke_tool(_ctx("_upload", ARGUMENTS), ARGUMENTS))
    assert _records(caplog) == []  # the caller has the exception
    outcome = asyncio.run(invoke_tool(tool, _ctx("_upload", ARGUMENTS), ARGUMENTS))
    assert (outcome.output, outcome.is_error) == (GENERIC, True)
    (record,) = _records(caplog)  # invoke_tool answered it: logged there, once
    assert record.getMessage() == "Tool '_upload' failed: OSError: disk full"
    assert record.exc_info is not None


def test_a_hand_built_tool_that_raises_is_logged_by_invoke_tool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def explode(ctx: Any, arguments: str) -> str:
        raise RuntimeError("boom")

    tool = FunctionTool("hand", "", {"type": "object", "properties": {}}, explode)
    outcome = asyncio.run(invoke_tool(tool, _ctx("hand", "{}"), "{}"))
    assert outcome.output == GENERIC
    assert [r.getMessage() for r in _records(caplog)] == ["Tool 'hand' failed: RuntimeError: boom"]


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        (
            '{"a": "' + SECRET + '"}',
            "a: Input should be a valid integer, unable to parse string as an integer",
        ),
        ('{"b": 1}', "a: Field required"),
        (
            "{not json",
            "not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        ),
        ('["' + SECRET + '"]', "expected a JSON object, got an array"),
        ('"' + SECRET + '"', "expected a JSON object, got a string"),
    ],
)
@pytest.mark.parametrize("failure", ["default", "none"])
def test_refused_arguments_are_one_line_without_the_values(
    caplog: pytest.LogCaptureFixture, arguments: str, reason: str, failure: str
) -> None:
    def add(a: int, b: int = 1) -> int:
        return a + b

    options: dict[str, Any] = {} if failure == "default" else {"failure_error_function": None}
    tool = function_tool(add, **options)
    outcome = asyncio.run(invoke_tool(tool, _ctx("add", arguments), arguments))
    assert (outcome.output, outcome.is_error) == (GENERIC, True)
    (record,) = _records(caplog)
    assert record.getMessage() == f"Tool 'add' refused its arguments: {reason}"
    assert record.exc_info is None and SECRET not in caplog.text


def test_the_opt_in_adds_the_arguments_cut_to_a_readable_length(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLWIRE_LOG_TOOL_DATA", "1")
    tool = function_tool(_upload)
    asyncio.run(invoke_tool(tool, _ctx("_upload", ARGUMENTS), ARGUMENTS))
    big = json.dumps({"path": "x" * 100_000, "token": SECRET})
    asyncio.run(invoke_tool(tool, _ctx("_upload", big), big))
    first, second = (r.getMessage() for r in _records(caplog))
    assert first == f"Tool '_upload' failed: OSError: disk full; arguments: {ARGUMENTS}"
    assert second.startswith(
        f"Tool '_upload' failed: OSError: disk full; arguments ({len(big)} characters): "
        '{"path": "xxx'
    )
    assert second.endswith("...") and len(second) < 2200


def test_sdk_style_timeouts_answered_with_text_are_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @function_tool(timeout=0.05)
    async def slow(token: str) -> str:
        await asyncio.sleep(5)
        return "late"

    arguments = json.dumps({"token": SECRET})
    text = asyncio.run(invoke_function_tool(slow, _ctx("slow", arguments), arguments))
    assert text == "Tool 'slow' timed out after 0.05 seconds."
    assert [r.getMessage() for r in _records(caplog)] == [
        "Tool 'slow' timed out after 0.05 seconds"
    ]


def test_a_failure_inside_an_agents_sdk_tool_is_logged_by_from_agents(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import agents

    tool = FunctionTool.from_agents(agents.function_tool(_upload))
    outcome = asyncio.run(invoke_tool(tool, _ctx("_upload", ARGUMENTS), ARGUMENTS))
    assert (outcome.output, outcome.is_error) == (GENERIC, True)
    (record,) = _records(caplog)
    assert record.getMessage().startswith("Tool '_upload' failed: AgentsToolFailed: ")
    assert "openai.agents" in record.getMessage() and record.exc_info is None


def test_a_successful_call_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    tool = function_tool(lambda a: a * 2, name_override="double")
    outcome = asyncio.run(invoke_tool(tool, _ctx("double", '{"a": 2}'), '{"a": 2}'))
    assert (outcome.output, outcome.is_error) == (4, False)
    assert _records(caplog) == []


def test_opted_in_arguments_cannot_forge_log_lines_or_drive_the_terminal(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arguments are the client's text: their line breaks, escape sequences and other control
    characters are logged as escapes, so the author's log stays one line per failure."""
    monkeypatch.setenv("TOOLWIRE_LOG_TOOL_DATA", "1")
    tool = function_tool(_upload)
    forged = '{"path": "a"}\nWARNING toolwire.tools forged\r\x1b[2J\x9b\u2028\u202e\x7f\t'
    asyncio.run(invoke_tool(tool, _ctx("_upload", forged), forged))
    valid = json.dumps({"path": "\u202etxt.exe\u2028", "token": "ok"}, ensure_ascii=False)
    asyncio.run(invoke_tool(tool, _ctx("_upload", valid), valid))
    refused, failed = (r.getMessage() for r in _records(caplog))
    assert refused.endswith(
        '; arguments: {"path": "a"}\\nWARNING toolwire.tools forged\\r\\x1b[2J\\x9b\\u2028'
        "\\u202e\\x7f\\t"
    )
    assert failed == (
        "Tool '_upload' failed: OSError: disk full; arguments: "
        '{"path": "\\u202etxt.exe\\u2028", "token": "ok"}'
    )


def test_a_refusal_naming_the_clients_keys_stays_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The refusal names where the arguments went wrong, and a dict key there is the client's
    text: it is escaped as the arguments are, with no opt-in needed."""

    def tally(counts: dict[str, int]) -> int:
        return sum(counts.values())

    tool = function_tool(tally, strict_mode=False)
    arguments = json.dumps({"counts": {"k\nWARNING toolwire.tools forged\x1b[31m": "x"}})
    outcome = asyncio.run(invoke_tool(tool, _ctx("tally", arguments), arguments))
    assert outcome.is_error
    (record,) = _records(caplog)
    assert record.getMessage() == (
        "Tool 'tally' refused its arguments: counts.k\\nWARNING toolwire.tools forged\\x1b[31m: "
        "Input should be a valid integer, unable to parse string as an integer"
    )


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ is broken")


def _unprintable(a: int) -> str:
    raise _Unprintable()


def test_an_exception_whose_text_cannot_be_read_still_gets_the_generic_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A careless author's exception with a broken `__str__`: the Agents SDK answers its
    generic text, and so does toolwire, logging the failure once. Before, reading the text for
    the log raised out of the tool call."""
    import agents
    from agents.tool_context import ToolContext as SdkToolContext

    arguments = json.dumps({"a": 1})
    sdk_tool = agents.function_tool(_unprintable)
    sdk_context = SdkToolContext(
        context=None, tool_name="_unprintable", tool_call_id="c1", tool_arguments=arguments
    )
    sdk_answer = asyncio.run(sdk_tool.on_invoke_tool(sdk_context, arguments))
    answer = asyncio.run(
        function_tool(_unprintable).on_invoke_tool(_ctx("_unprintable", arguments), arguments)
    )
    assert answer == sdk_answer == GENERIC
    (record,) = _records(caplog)
    assert record.getMessage() == (
        "Tool '_unprintable' failed: _Unprintable: <the exception's text could not be read>"
    )
    assert record.exc_info is not None and isinstance(record.exc_info[1], _Unprintable)
