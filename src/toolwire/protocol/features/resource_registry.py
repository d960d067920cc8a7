"""The published resources and resource templates, and how a URI finds the one that serves it: by
exact URI, else the first template (in publication order) that matches. URIs are compared as
strings, never resolved here; listings are built per protocol version."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import UserError
from .registry import NamedEntries, listing, optional_text

if TYPE_CHECKING:
    import anyio

    from ...tools.threads import SyncBudget
    from .completers import Completer
    from .uri_template import UriTemplate

__all__ = ["Described", "FixedResource", "Reader", "ResourceRegistry", "TemplatedResource"]


class Reader(Protocol):
    """What reads a URI (`resource_reading.FunctionReader`, `resource_files.DirectoryResources`):
    its contents, or the very list `NOT_FOUND`; `context` only when `takes_context`."""

    takes_context: bool

    async def read(
        self,
        uri: str,
        values: Mapping[str, str],
        limiter: SyncBudget | anyio.CapacityLimiter | None,
        context: Any = None,
    ) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class Described:
    """What a listing says about a resource or a template besides its URI."""

    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Mapping[str, Any] | None = None
    icons: tuple[Mapping[str, Any], ...] | None = None
    meta: Mapping[str, Any] | None = None

    def check(self, label: str) -> Described:
        """This description, each option checked: a UserError naming `label` and the option."""
        for what in ("name", "title", "description", "mime_type"):
            optional_text(getattr(self, what), f"{what} of {label}")
        size = self.size
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise UserError(f"size of {label} must be a whole number of bytes >= 0, not {size!r}")
        for what in ("annotations", "meta"):
            value = getattr(self, what)
            if value is not None and not isinstance(value, Mapping):
                raise UserError(f"{what} of {label} must be a dict, not {type(value).__name__}")
        return self

    def fields(self, version: str) -> dict[str, Any]:
        """The listing's fields other than `uri`/`uriTemplate`, for `version`."""
        fields = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
            "size": self.size,
            "annotations": dict(self.annotations) if self.annotations else None,
        }
        return listing(version, fields, self.icons, self.meta)


@dataclass(frozen=True)
class FixedResource:
    """A resource at one URI; `reader` None when it is only listed (read through the template
    that lists it)."""

    uri: str
    described: Described
    reader: Reader | None = None

    def listing(self, version: str) -> dict[str, Any]:
        """The `Resource` object `resources/list` shows."""
        return {"uri": self.uri, **self.described.fields(version)}


@dataclass(frozen=True)
class TemplatedResource:
    """A family of resources whose URIs match a template; `completers` serve
    `completion/complete`, `lister` (run in a worker thread) lists members for `resources/list`."""

    template: UriTemplate
    described: Described
    reader: Reader
    completers: Mapping[str, Completer] = field(default_factory=dict)
    lister: Callable[[], Iterable[FixedResource]] | None = None

    @property
    def uri_template(self) -> str:
        """The template as written."""
        return self.template.text

    def listing(self, version: str) -> dict[str, Any]:
        """The `ResourceTemplate` object `resources/templates/list` shows (no `size`: a
        template's resources have their own)."""
        listed = {"uriTemplate": self.template.text, **self.described.fields(version)}
        listed.pop("size", None)
        return listed


class ResourceRegistry(NamedEntries[FixedResource | TemplatedResource]):
    """The resources (by URI) and templates (by their text) a server publishes, in publication
    order; a template's text always holds a `{`, a fixed URI never does."""

    def __init__(self) -> None:
        super().__init__()
        self._templates: tuple[TemplatedResource, ...] = ()  # in the order they are tried
        # Called with a URI whose contents changed (the server tells its sessions; an HTTP
        # app's change bus tells the other processes).
        self.update_listeners: list[Callable[[str], None]] = []

    @property
    def templates(self) -> Mapping[str, TemplatedResource]:
        """The templates by their text (read-only)."""
        return MappingProxyType({entry.uri_template: entry for entry in self._templates})

    def template_for(self, uri_template: str) -> TemplatedResource | None:
        """The template published under exactly this text (what completion requests name)."""
        entry = self._entries.get(uri_template)
        return entry if isinstance(entry, TemplatedResource) else None

    def find(self, uri: str) -> tuple[Reader, dict[str, str]] | None:
        """What reads `uri`, and the values its template matched; None when nothing does."""
        fixed = self._entries.get(uri)
        if isinstance(fixed, FixedResource) and fixed.reader is not None:
            return fixed.reader, {}
        for entry in self._templates:
            values = entry.template.match(uri)
            if values is not None:
                return entry.reader, values
        return None

    def listings(self) -> list[FixedResource]:
        """The fixed resources (those of templates' listers not included)."""
        return [entry for entry in self._entries.values() if isinstance(entry, FixedResource)]

    def updated(self, uri: str) -> None:
        """The contents at `uri` changed: tell the update listeners (a TypeError, raised in the
        caller's thread, when `uri` is not a string: no subscription could ever match it)."""
        if not isinstance(uri, str):
            raise TypeError(
                f"notify_resource_updated: uri must be a string, not {type(uri).__name__}"
            )
        for listener in list(self.update_listeners):
            listener(uri)

    def _key(self, entry: FixedResource | TemplatedResource) -> str:
        return entry.uri if isinstance(entry, FixedResource) else entry.uri_template

    def _taken(self, entry: FixedResource | TemplatedResource) -> Exception:
        if isinstance(entry, FixedResource):
            return ValueError(f"a resource with URI {entry.uri!r} is already published")
        return ValueError(f"a resource template {entry.uri_template!r} is already published")

    def _unknown(self, key: str) -> Exception:
        return KeyError(f"no resource or resource template {key!r} is published")

    def _added(self, entry: FixedResource | TemplatedResource) -> None:
        if isinstance(entry, TemplatedResource):
            self._templates += (entry,)

    def _removed(self, entry: FixedResource | TemplatedResource) -> None:
        self._templates = tuple(known for known in self._templates if known is not entry)
