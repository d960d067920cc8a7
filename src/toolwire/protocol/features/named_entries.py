"""What every registry of published things (tools, prompts, resources) has in common: entries by key
in publication order, refusals that name the kind, listeners told of each change. A registry
subclasses `NamedEntries`, names its kind, and keeps any bookkeeping of its own in `_added`,
`_removed` and `_changed`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from ...errors import UserError
from ..wire import eras

__all__ = ["NamedEntries", "listing", "optional_text"]

E = TypeVar("E")


class NamedEntries(Mapping[str, E], Generic[E]):
    """Entries by name, in the order they were published; listeners hear of every change."""

    kind = "entry"  # in refusals: "A tool named 'x' is already registered ..."

    def __init__(self) -> None:
        self._entries: dict[str, E] = {}
        self.listeners: list[Callable[[], None]] = []

    def __getitem__(self, name: str) -> E:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, entry: E) -> None:
        """Publish `entry`; a key already taken is refused (a UserError unless `_taken` says)."""
        key = self._key(entry)
        if key in self._entries:
            raise self._taken(entry)
        self._entries[key] = entry
        self._added(entry)
        self._changed()

    def remove(self, key: str) -> E:
        """Stop publishing `key`; an unknown one is a KeyError naming the known ones."""
        entry = self._entries.pop(key, None)
        if entry is None:
            raise self._unknown(key)
        self._removed(entry)
        self._changed()
        return entry

    def view(self) -> Mapping[str, E]:
        """A read-only live view of the entries by key."""
        return MappingProxyType(self._entries)

    def entries(self) -> list[E]:
        """All entries, in order."""
        return list(self._entries.values())

    def _key(self, entry: E) -> str:
        name: str = getattr(entry, "name")  # noqa: B009 - tools and prompts have one
        return name

    def _taken(self, entry: E) -> Exception:
        name = self._key(entry)
        return UserError(f"A {self.kind} named {name!r} is already registered on this server")

    def _unknown(self, key: str) -> Exception:
        known = ", ".join(sorted(self._entries)) or "none"
        return KeyError(f"No {self.kind} named {key!r} on this server ({self.kind}s: {known})")

    def _added(self, entry: E) -> None:
        """Bookkeeping of a subclass for a new entry (before listeners hear of it)."""

    def _removed(self, entry: E) -> None:
        """Bookkeeping of a subclass for an entry gone (before listeners hear of it)."""

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()


def listing(version: str, fields: dict[str, Any], icons: Any, meta: Any) -> dict[str, Any]:
    """A listing entry: `fields` less its None values (and `title` where `version` lacks it),
    then `icons` and `_meta` where it knows them."""
    entry = {key: value for key, value in fields.items() if value is not None}
    if "title" in entry and not eras.supports(version, "title"):
        del entry["title"]
    if icons and eras.supports(version, "icons"):
        entry["icons"] = [dict(icon) for icon in icons]
    if meta and eras.supports(version, "tool_meta"):
        entry["_meta"] = dict(meta)
    return entry


def optional_text(value: Any, what: str) -> str | None:
    """`value` if it is a string or None; a UserError naming `what` otherwise."""
    if value is not None and not isinstance(value, str):
        raise UserError(f"{what} must be a string, not {type(value).__name__}")
    return value
