"""Checking the constructor's options: its numbers the way the Agents SDK does (same
messages), and toolwire's own `protocol_mode`."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Literal

__all__ = [
    "PROTOCOL_MODES",
    "ProtocolMode",
    "Seconds",
    "checked_backoff_max",
    "checked_list_pages",
    "checked_protocol_mode",
    "checked_session_timeout",
]

Seconds = float  # a duration; int values are accepted too, as everywhere in Python

# "handshake": 2024-11-05 to 2025-11-25, opened by `initialize`; "modern": 2026-07-28.
ProtocolMode = Literal["auto", "handshake", "modern"]
PROTOCOL_MODES: tuple[ProtocolMode, ...] = ("auto", "handshake", "modern")


def checked_session_timeout(value: object) -> float | None:
    """Seconds for each request, or None (None and 0 both mean no timeout)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("client_session_timeout_seconds must be a number of seconds or None.")
    if not math.isfinite(value) or value < 0:
        raise ValueError("client_session_timeout_seconds must be zero or a positive finite value.")
    if value == 0:
        return None
    try:
        timedelta(seconds=value)
    except OverflowError:
        raise ValueError(
            "client_session_timeout_seconds must fit in a datetime.timedelta."
        ) from None
    return float(value)


def checked_backoff_max(value: object) -> float | None:
    """The cap on the delay between retries, or None for no cap."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValueError(
            "retry_backoff_seconds_max must be a non-negative finite number of seconds or None."
        )
    return float(value)


def checked_list_pages(value: object) -> int | None:
    """How many pages one listing may read, or None for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("max_list_pages must be a positive integer or None.")
    if value < 1:
        raise ValueError("max_list_pages must be a positive integer or None.")
    return value


def checked_protocol_mode(value: object) -> ProtocolMode:
    """The protocol era a client pins ("handshake", "modern"), or "auto" to negotiate."""
    if value == "legacy":
        raise ValueError(
            'protocol_mode="legacy" is now protocol_mode="handshake" (the era opened by '
            "`initialize`, 2024-11-05 to 2025-11-25)."
        )
    for mode in PROTOCOL_MODES:
        if value == mode:
            return mode
    raise ValueError(f'protocol_mode must be "auto", "handshake" or "modern", not {value!r}.')
