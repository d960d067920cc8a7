"""Decoding JSON text on the fast path of `json.JSONDecoder.raw_decode`.

`json.JSONDecoder.decode` runs two regular expressions around the scanner to skip
whitespace. Frames and tool arguments are almost always compact, so `raw_decode` is tried
first and the full decoder only takes what it leaves (leading or trailing whitespace, and
every error, which it reports in its own words).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["decoding_function"]


def decoding_function(decoder: json.JSONDecoder) -> Callable[[str], Any]:
    """What `decoder.decode` does, faster on compact text.

    Args:
        decoder: The decoder whose settings (e.g. `parse_constant`) apply.
    """
    raw = decoder.raw_decode
    full = decoder.decode

    def decode(text: str) -> Any:
        try:
            value, end = raw(text)
        except Exception:  # the full decoder raises the proper error
            return full(text)
        return value if end == len(text) else full(text)

    return decode
