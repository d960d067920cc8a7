"""What a resource function returns, turned into the `contents` of a `resources/read` result.

`contents_of` makes a `str` one text item, `bytes`, `bytearray` or `memoryview` one base64
`blob` item, and anything else (a dict, a list, a model, a dataclass) its JSON as text. `None`
means "no such resource" and is answered with the resource-not-found error, never with empty
contents. Every item carries the URI that was read and a `mimeType`: the declared one, else
`text/plain`, `application/json` or `application/octet-stream`.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..wire.content import to_jsonable

__all__ = ["NOT_FOUND", "contents_of"]

NOT_FOUND: list[dict[str, Any]] = []  # returned (by identity) for a function's None


def contents_of(uri: str, output: Any, mime_type: str | None) -> list[dict[str, Any]]:
    """The `contents` items for a function's `output` read at `uri`.

    Returns:
        One item, or `NOT_FOUND` (the very object) when `output` is None.

    Raises:
        ValueError: `output` cannot be written as JSON (NaN, a cycle...).
    """
    if output is None:
        return NOT_FOUND
    if isinstance(output, str):
        return [{"uri": uri, "mimeType": mime_type or "text/plain", "text": output}]
    if isinstance(output, bytes | bytearray | memoryview):
        blob = base64.b64encode(bytes(output)).decode("ascii")
        return [{"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": blob}]
    text = json.dumps(to_jsonable(output), ensure_ascii=False, allow_nan=False)
    return [{"uri": uri, "mimeType": mime_type or "application/json", "text": text}]
