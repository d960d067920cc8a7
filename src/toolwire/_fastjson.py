"""Decoding JSON text with the C scanner called directly.

`json.JSONDecoder.decode` runs two regular expressions around the C scanner to skip
whitespace. Frames and tool arguments are almost always compact, so the scanner is called
first and the full decoder only takes what it leaves (leading or trailing whitespace, and
every error, which it reports in its own words). On a small message that is about a third of
the decoding time (measured: 2.6 -> 2.1 us per async tool call outside a server).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.scanner import c_make_scanner  # type: ignore[attr-defined]
from typing import Any

__all__ = ["decoding_function"]


def decoding_function(decoder: json.JSONDecoder) -> Callable[[str], Any]:
    """What `decoder.decode` does, faster on compact text.

    Args:
        decoder: The decoder whose settings (e.g. `parse_constant`) apply.
    """
    scan = c_make_scanner(decoder) if c_make_scanner is not None else None
    full = decoder.decode
    if scan is None:
        return full

    def decode(text: str) -> Any:
        try:
            value, end = scan(text, 0)
        except Exception:  # the full decoder raises the proper error
            return full(text)
        return value if end == len(text) else full(text)

    return decode
