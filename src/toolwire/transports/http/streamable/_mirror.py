"""The HTTP headers a 2026-07-28 POST mirrors from its JSON-RPC body (`MCP-Protocol-Version`,
`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), checked against it: a mismatch raises -32020 with the
official SDK's message. See docs/decisions.md, `_mirror.py`."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from ....protocol.wire.jsonrpc import ProtocolError

if TYPE_CHECKING:
    from ....protocol.features.registry import RegisteredTool

__all__ = [
    "HEADER_MISMATCH",
    "check_method",
    "check_name",
    "check_once",
    "check_params",
    "check_version",
]

HEADER_MISMATCH = -32020

_ROUTING = (b"mcp-protocol-version", b"mcp-method", b"mcp-name")

# Methods that address one target, and the body field naming it.
_TARGET_FIELD = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

_SENTINEL_OPEN = "=?base64?"
_SENTINEL_CLOSE = "?="
_MAX_SCHEMA_DEPTH = 32

# Mirrored parameters per tool, found once: (header suffix, property path).
_MIRRORED: WeakKeyDictionary[RegisteredTool, tuple[tuple[str, tuple[str, ...]], ...]] = (
    WeakKeyDictionary()
)


def check_once(repeated: Mapping[bytes, int]) -> None:
    """The headers that route a request (version, method, name) must each come once: a proxy
    reading the first copy and a server reading the last would disagree."""
    for name in _ROUTING:
        if name in repeated:
            raise _mismatch(f"{name.decode()} header appears more than once")


def _mismatch(text: str) -> ProtocolError:
    return ProtocolError(HEADER_MISMATCH, text)


def _plain(raw: bytes | None) -> str | None:
    """A header value stripped; None if absent or holding anything but visible ASCII, space
    and tab."""
    if raw is None:
        return None
    text = raw.decode("latin-1")
    if all(" " <= char <= "~" or char == "\t" for char in text):
        return text.strip(" \t")
    return None


def _unwrap(value: str) -> str | None:
    """The text a `=?base64?...?=` value stands for (others are literal); None if malformed."""
    if not (
        len(value) >= len(_SENTINEL_OPEN) + len(_SENTINEL_CLOSE)
        and value.startswith(_SENTINEL_OPEN)
        and value.endswith(_SENTINEL_CLOSE)
    ):
        return value
    try:
        decoded = base64.b64decode(
            value[len(_SENTINEL_OPEN) : -len(_SENTINEL_CLOSE)], validate=True
        )
        return decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def check_version(headers: Mapping[bytes, bytes], envelope_version: Any) -> None:
    """The `MCP-Protocol-Version` header must name the envelope's version (and be there)."""
    value = _plain(headers.get(b"mcp-protocol-version"))
    if value is None or value != envelope_version:
        raise _mismatch(
            "mcp-protocol-version header does not match the request envelope's protocol version"
        )


def check_method(headers: Mapping[bytes, bytes], method: str) -> None:
    """`Mcp-Method` must be present and equal the body's method."""
    if _plain(headers.get(b"mcp-method")) != method:
        raise _mismatch("mcp-method header does not match the request body's method")


def check_name(headers: Mapping[bytes, bytes], method: str, params: dict[str, Any] | None) -> None:
    """`Mcp-Name` must equal the target the body names, when it names one."""
    field = _TARGET_FIELD.get(method)
    if field is None or not params or field not in params:
        return
    plain = _plain(headers.get(b"mcp-name"))
    if plain is None or _unwrap(plain) != params[field]:
        raise _mismatch(f"mcp-name header does not match the request body's {field!r} parameter")


def check_params(
    headers: Mapping[bytes, bytes],
    tools: Mapping[str, RegisteredTool],
    params: dict[str, Any] | None,
    repeated: Mapping[bytes, int],
) -> None:
    """The `Mcp-Param-*` headers of a `tools/call` must mirror the arguments its tool's
    schema marks with `x-mcp-header`, each header once (`repeated`: the names sent twice)."""
    name = params.get("name") if params else None
    entry = tools.get(name) if isinstance(name, str) else None
    if entry is None:
        return
    mirrored = _MIRRORED.get(entry)
    if mirrored is None:
        mirrored = _MIRRORED[entry] = _find_mirrored(entry.tool.params_json_schema)
    if not mirrored:
        return
    assert params is not None
    arguments = params.get("arguments")
    for suffix, path in mirrored:
        _check_one(headers, suffix, path, arguments, repeated)


def _check_one(
    headers: Mapping[bytes, bytes],
    suffix: str,
    path: tuple[str, ...],
    arguments: Any,
    repeated: Mapping[bytes, int],
) -> None:
    header = f"Mcp-Param-{suffix}"
    # A name outside ASCII becomes one no HTTP server lets through (header names are tokens).
    key = header.lower().encode("ascii", "replace")
    argument = ".".join(path)
    value = _value_at(arguments, path)
    raw = headers.get(key)
    if raw is not None and key in repeated:
        raise _mismatch(f"{header} header appears more than once")
    if raw is None:
        if value is not None:
            raise _mismatch(
                f"{header} header is missing but the request body's {argument!r} argument "
                "is present"
            )
        return
    if value is None:
        raise _mismatch(
            f"{header} header is present but the request body's {argument!r} argument is absent"
        )
    plain = _plain(raw)
    text = _unwrap(plain) if plain is not None else None
    if text is None:
        raise _mismatch(f"{header} header carries a malformed base64 sentinel value")
    if not _same(text, value):
        raise _mismatch(f"{header} header does not match the request body's {argument!r} argument")


def _value_at(arguments: Any, path: tuple[str, ...]) -> Any:
    """The argument at `path` (a chain of property names), or None when absent."""
    current = arguments
    for key in path:
        if not isinstance(current, dict):
            return None
        current = current.get(key)
    return current


def _same(text: str, value: Any) -> bool:
    """Whether a decoded header value states the body's value."""
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int | float):
        try:
            return Decimal(text) == Decimal(str(value))
        except InvalidOperation:
            return False
    return isinstance(value, str) and text == value


def _find_mirrored(schema: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Every `x-mcp-header` reachable from the schema's root through `properties` alone."""
    found: list[tuple[str, tuple[str, ...]]] = []

    def walk(properties: Any, path: tuple[str, ...]) -> None:
        if not isinstance(properties, dict) or len(path) >= _MAX_SCHEMA_DEPTH:
            return
        for key, sub in properties.items():
            if not isinstance(sub, dict):
                continue
            here = (*path, key)
            suffix = sub.get("x-mcp-header")
            if isinstance(suffix, str) and suffix:
                found.append((suffix, here))
            walk(sub.get("properties"), here)

    if isinstance(schema, dict):
        walk(schema.get("properties"), ())
    return tuple(found)
