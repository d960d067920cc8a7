"""`toolwire.tools.log_text`: records keep their exception, print it without forged lines."""

from __future__ import annotations

import logging

import pytest

from toolwire.tools.log_text import escape_for_log, log_with_trace, safe_traceback

FORGED = "x\n2026-11-28 ERROR toolwire forged\r\x1b[2J\u2028"


def _raised(text: str) -> ValueError:
    try:
        try:
            raise KeyError("inner")
        except KeyError as inner:
            raise ValueError(text) from inner
    except ValueError as error:
        return error


def test_the_record_keeps_the_exception_and_its_printed_trace_is_safe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire.test")
    error = _raised(f"bad {FORGED}")
    log_with_trace(
        logging.getLogger("toolwire.test"), logging.ERROR, "call %r failed", "t", error=error
    )
    (record,) = caplog.records
    assert record.exc_info is not None and record.exc_info[1] is error
    assert record.getMessage() == "call 't' failed"
    assert record.pathname == __file__ and record.funcName.startswith("test_the_record")
    printed = logging.Formatter("%(levelname)s %(message)s").format(record)
    lines = printed.splitlines()
    assert lines[0] == "ERROR call 't' failed"
    assert lines[-1] == "ValueError: bad x\\n2026-11-28 ERROR toolwire forged\\r\\x1b[2J\\u2028"
    assert "KeyError: 'inner'" in lines  # the cause is printed as usual
    assert "\x1b" not in printed and "\u2028" not in printed
    assert not any(line.startswith("2026") for line in lines)


def test_a_plain_trace_is_what_the_traceback_module_prints() -> None:
    error = _raised("plain words")
    assert safe_traceback(error) == logging.Formatter().formatException(
        (type(error), error, error.__traceback__)
    )


def test_below_the_level_nothing_is_made(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="toolwire.test")
    log_with_trace(logging.getLogger("toolwire.test"), logging.INFO, "quiet", error=_raised("x"))
    assert caplog.records == []


def test_escape_for_log_keeps_printable_text() -> None:
    assert escape_for_log("héllo wörld ✓") == "héllo wörld ✓"
    assert escape_for_log("a\tb\x00c\x9b\u202e") == "a\\tb\\x00c\\x9b\\u202e"
