"""Client text in log lines, made safe: no line it holds can pass for a record of its own.

`escape_for_log` writes line breaks, control characters, the Unicode line separators and the
bidirectional controls as `\\n`, `\\x1b`, `\\u202e`-style escapes; `log_with_trace` logs a
failure with its exception attached as usual (`exc_info`, for handlers that read it), while the
traceback standard formatters print has each exception's own text escaped that way.
"""

from __future__ import annotations

import logging
import re
import traceback

__all__ = ["escape_for_log", "log_with_trace", "safe_traceback"]

# C0 and C1 controls, DEL, the Unicode line and paragraph separators, the bidirectional controls.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def escape_for_log(text: str) -> str:
    """`text` on one line, with what could forge a line or drive a terminal escaped."""
    return _UNSAFE.sub(_escape_one, text)


def _chain(error: BaseException) -> list[BaseException]:
    """`error`, its causes and contexts, and the members of exception groups, each once."""
    found: list[BaseException] = []
    pending = [error]
    while pending:
        current = pending.pop()
        if any(current is seen for seen in found):
            continue
        found.append(current)
        linked = (current.__cause__, current.__context__)
        pending.extend(each for each in linked if each is not None)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
    return found


def safe_traceback(error: BaseException) -> str:
    """`error`'s traceback as `logging` prints it, each exception's own text on one line."""
    rendered = "".join(traceback.format_exception(error))
    for each in _chain(error):
        own = "".join(traceback.format_exception_only(each))
        if own.count("\n") > 1 or _UNSAFE.search(own.rstrip("\n")):
            rendered = rendered.replace(own, escape_for_log(own.rstrip("\n")) + "\n")
    return rendered.rstrip("\n")


def log_with_trace(
    log: logging.Logger, level: int, message: str, *args: object, error: BaseException
) -> None:
    """Log `message % args` at `level` with `error`'s traceback, made safe by `safe_traceback`.

    The record carries the exception as `exc_info` as `logger.exception` would; its `exc_text`,
    which standard formatters print instead of rendering the traceback again, is the safe one.
    """
    if not log.isEnabledFor(level):
        return
    filename, line, function, _ = log.findCaller(stacklevel=2)
    record = log.makeRecord(
        log.name,
        level,
        filename,
        line,
        message,
        args,
        (type(error), error, error.__traceback__),
        function,
    )
    record.exc_text = safe_traceback(error)
    log.handle(record)
