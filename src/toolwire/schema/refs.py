"""Local JSON-schema references (`"$ref": "#/..."`): the one place toolwire reads a pointer.

A reference is a JSON Pointer (RFC 6901) in a URI fragment: percent-decoded first (as the Agents
SDK does), then split on `/`, with `~1` / `~0` standing for `/` and `~`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

__all__ = ["RefError", "lookup_local_ref", "pointer_tokens", "resolve_local_ref"]

_INDEX = re.compile(r"0|[1-9][0-9]*")


class RefError(ValueError):
    """A `$ref` that does not name anything in its document.

    Attributes:
        reason: One of "not-local" (not `#` or `#/...`), "encoding" (bad percent-escapes),
            "missing" (a name the document lacks) or "not-container" (a step into a scalar).
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def pointer_tokens(ref: object, *, percent_decoded: bool = True) -> list[str]:
    """The unescaped segments of a local reference; `#` gives none (the whole document).

    `percent_decoded=False` reads the fragment as written (the SDK's output-schema root check).

    Raises:
        RefError: when `ref` is not a string starting with `#/` (or exactly `#`), or when its
            percent-escapes are not valid UTF-8 (the `UnicodeDecodeError` is its cause).
    """
    if ref == "#":
        return []
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise RefError(
            f"$ref {ref!r} is not a local reference: it must be '#' or start with '#/'",
            "not-local",
        )
    fragment = ref[2:]
    if percent_decoded:
        try:
            fragment = unquote(fragment, errors="strict")
        except UnicodeDecodeError as error:
            raise RefError(
                f"$ref {ref!r} has a percent-escape that is not UTF-8 ({error.reason})",
                "encoding",
            ) from error
    return [raw.replace("~1", "/").replace("~0", "~") for raw in fragment.split("/")]


def resolve_local_ref(
    document: object, ref: object, *, through_lists: bool = True, percent_decoded: bool = True
) -> Any:
    """The value `ref` names inside `document`, or `RefError` naming the segment that failed
    (`through_lists`: a segment may index into a list)."""
    current = document
    for token in pointer_tokens(ref, percent_decoded=percent_decoded):
        if isinstance(current, dict):
            if token not in current:
                raise RefError(
                    f"$ref {ref!r}: no {token!r} in the object it points into", "missing"
                )
            current = current[token]
        elif through_lists and isinstance(current, list):
            if not (_INDEX.fullmatch(token) and int(token) < len(current)):
                raise RefError(
                    f"$ref {ref!r}: {token!r} is not an index of a {len(current)}-item list",
                    "missing",
                )
            current = current[int(token)]
        else:
            raise RefError(
                f"$ref {ref!r}: cannot look up {token!r} inside {type(current).__name__}",
                "not-container",
            )
    return current


def lookup_local_ref(
    document: object, ref: object, *, through_lists: bool = True, percent_decoded: bool = True
) -> Any | None:
    """Like `resolve_local_ref`, but None when `ref` names nothing (for best-effort readers)."""
    try:
        return resolve_local_ref(
            document, ref, through_lists=through_lists, percent_decoded=percent_decoded
        )
    except RefError:
        return None
