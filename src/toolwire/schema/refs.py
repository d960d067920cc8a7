"""Local JSON-schema references (`"$ref": "#/..."`): the one place toolwire reads a pointer.

A reference is a JSON Pointer (RFC 6901) in a URI fragment: percent-decoded first (as the Agents
SDK does), then split on `/`, with `~1` / `~0` standing for `/` and `~`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

__all__ = ["lookup_local_ref", "pointer_tokens"]

_INDEX = re.compile(r"0|[1-9][0-9]*")


def pointer_tokens(ref: str, *, percent_decoded: bool = True) -> list[str]:
    """The unescaped segments of `ref`, `#` (none) or `#/...`; `percent_decoded=False` reads
    it as written; a percent-escape that is not UTF-8 raises `UnicodeDecodeError`."""
    if ref == "#":
        return []
    fragment = unquote(ref[2:], errors="strict") if percent_decoded else ref[2:]
    return [raw.replace("~1", "/").replace("~0", "~") for raw in fragment.split("/")]


def lookup_local_ref(
    document: object, ref: object, *, through_lists: bool = True, percent_decoded: bool = True
) -> Any | None:
    """The value local reference `ref` names inside `document`, or None when it names nothing
    (`through_lists`: a segment may index into a list)."""
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        return None
    try:
        tokens = pointer_tokens(ref, percent_decoded=percent_decoded)
    except UnicodeDecodeError:
        return None
    current = document
    for token in tokens:
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif (
            through_lists
            and isinstance(current, list)
            and _INDEX.fullmatch(token)
            and int(token) < len(current)
        ):
            current = current[int(token)]
        else:
            return None
    return current
