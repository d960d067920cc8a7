"""Local JSON-schema references (`"$ref": "#/..."`): the one place toolwire reads a pointer.

A local reference is a JSON Pointer (RFC 6901) written as a URI fragment, so a name in it may be
percent-encoded (`%20`) and `~1` / `~0` stand for `/` and `~`. Three parts of toolwire follow such
references: strict conversion (which inlines targets), the schema problem report, and argument
coercion on the protocol side. They all go through `pointer_tokens` and `walk_pointer` so that a
name with a slash or a space is found the same way everywhere.

The fragment is percent-decoded *before* it is split on `/`, as the Agents SDK does; this keeps
strict conversion byte-compatible with it, and the other readers agree with strict conversion.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

__all__ = [
    "RefError",
    "lookup_local_ref",
    "pointer_tokens",
    "resolve_local_ref",
    "walk_pointer",
]


class RefError(ValueError):
    """A `$ref` that does not name anything in its document.

    Attributes:
        ref: The reference exactly as written in the schema.
        reason: One of "not-local" (not `#` or `#/...`), "encoding" (bad percent-escapes),
            "missing" (a name the document lacks) or "not-container" (a step into a scalar).
        token: The pointer segment that failed, for "missing" and "not-container".
        container: The value the failing segment was looked up in.
    """

    def __init__(
        self,
        message: str,
        *,
        ref: object,
        reason: str,
        token: str | None = None,
        container: object = None,
    ) -> None:
        super().__init__(message)
        self.ref = ref
        self.reason = reason
        self.token = token
        self.container = container


def pointer_tokens(ref: object, *, percent_decoded: bool = True) -> list[str]:
    """The unescaped segments of a local reference; `#` gives no segment (the whole document).

    `percent_decoded=False` reads the fragment as it is written, which is what the Agents SDK
    does when it checks that an output schema's root is an object (only its strict
    conversion decodes percent-escapes).

    Raises:
        RefError: when `ref` is not a string starting with `#/` (or exactly `#`), or when its
            percent-escapes are not valid UTF-8.
    """
    if ref == "#":
        return []
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise RefError(
            f"$ref {ref!r} is not a local reference: it must be '#' or start with '#/'",
            ref=ref,
            reason="not-local",
        )
    if not percent_decoded:
        return [raw.replace("~1", "/").replace("~0", "~") for raw in ref[2:].split("/")]
    try:
        decoded = unquote(ref[2:], errors="strict")
    except UnicodeDecodeError as error:
        raise RefError(
            f"$ref {ref!r} has a percent-escape that is not UTF-8 ({error.reason})",
            ref=ref,
            reason="encoding",
        ) from error
    # `~1` first: "~01" must become "~1", not "/"
    return [raw.replace("~1", "/").replace("~0", "~") for raw in decoded.split("/")]


def walk_pointer(
    document: object, ref: object, *, through_lists: bool = True, percent_decoded: bool = True
) -> Iterator[tuple[object, str, object]]:
    """Follow `ref` one segment at a time, yielding (container, segment, value) for each step.

    Lazy on purpose: a caller with extra rules (strict conversion refuses to step into a nested
    `$id` resource, or through anything but an object) checks each yielded value and raises
    before the walk goes further.

    Raises:
        RefError: when a segment names nothing (a missing key, an index out of range, or a step
            into a scalar, or into a list when `through_lists` is false).
    """
    current = document
    for token in pointer_tokens(ref, percent_decoded=percent_decoded):
        if isinstance(current, dict):
            if token not in current:
                raise RefError(
                    f"$ref {ref!r}: no {token!r} in the object it points into",
                    ref=ref,
                    reason="missing",
                    token=token,
                    container=current,
                )
            value = current[token]
        elif through_lists and isinstance(current, list):
            if not (token.isdigit() and int(token) < len(current)):
                raise RefError(
                    f"$ref {ref!r}: {token!r} is not an index of a {len(current)}-item list",
                    ref=ref,
                    reason="missing",
                    token=token,
                    container=current,
                )
            value = current[int(token)]
        else:
            raise RefError(
                f"$ref {ref!r}: cannot look up {token!r} inside {type(current).__name__}",
                ref=ref,
                reason="not-container",
                token=token,
                container=current,
            )
        yield current, token, value
        current = value


def resolve_local_ref(
    document: object, ref: object, *, through_lists: bool = True, percent_decoded: bool = True
) -> Any:
    """The value `ref` names inside `document` (the options as for `walk_pointer`).

    Raises:
        RefError: naming `ref` and the segment that failed.
    """
    target: object = document
    steps = walk_pointer(
        document, ref, through_lists=through_lists, percent_decoded=percent_decoded
    )
    for _container, _token, value in steps:
        target = value
    return target


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
