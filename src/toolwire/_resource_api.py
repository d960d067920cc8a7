"""The resource side of a `Server`: `@server.resource`, directories, and telling clients of changes.

`@server.resource(uri)` publishes one resource, or a template when the URI has `{...}`
variables (the function's arguments), and returns the function unchanged; a malformed
template or a function that does not fit it is a `ValueError` at decoration naming both, a
malformed icon a `UserError`. What is published lives in a `ResourceRegistry` that the sessions
serve. Publishing or removing a resource tells clients the list changed, and
`notify_resource_updated(uri)` tells those following `uri`; both may be called from any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ._announcer import Announcer
    from .protocol.app import OpenSession
    from .protocol.resource_files import DirectoryResources
    from .protocol.resource_registry import FixedResource, ResourceRegistry

__all__ = ["ResourceApi"]

F = TypeVar("F", bound=Callable[..., Any])


class ResourceApi:
    """`Server.resource`, `add_resource`, `add_directory_resources` and their kin."""

    _announcer: Announcer
    _resources: ResourceRegistry | None = None
    root_path: Path

    @property
    def resource_registry(self) -> ResourceRegistry:
        """The published resources and templates, as sessions serve them."""
        if self._resources is None:
            from .protocol.resource_registry import ResourceRegistry

            self._resources = ResourceRegistry()
            self._resources.listeners.append(self._resources_changed)
            self._resources.update_listeners.append(self._resource_updated)
        return self._resources

    def resource(
        self,
        uri: str,
        *,
        mime_type: str | None = None,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        size: int | None = None,
        annotations: Mapping[str, Any] | None = None,
        icons: Iterable[Mapping[str, Any]] | None = None,
        meta: Mapping[str, Any] | None = None,
        completers: Mapping[str, Callable[..., Any]] | None = None,
    ) -> Callable[[F], F]:
        """Publish a function as a resource (`uri` fixed) or a resource template (`uri` with
        `{name}` variables, which become the function's arguments).

        Args:
            uri: The resource's URI (`config://app`), or a URI template
                (`users://{user_id}/profile`; `{+path}` may span `/`, `{?a,b}` names optional
                query parameters).
            mime_type: The contents' MIME type (default: by what the function returns:
                `text/plain` for `str`, `application/octet-stream` for `bytes`,
                `application/json` for anything else, which is sent as JSON text).
            name: The name clients show (default: the function's name).
            title: A human-readable title (2025-06-18 on).
            description: What the resource holds (default: the function's docstring).
            size: The size in bytes, if known (fixed resources).
            annotations: MCP annotations (`audience`, `priority`, `lastModified`).
            icons: Icons for clients (`{"src": ..., "mimeType": ..., "sizes": [...]}`;
                2025-11-25 on).
            meta: `_meta` sent with the listing.
            completers: For templates, per-variable functions suggesting values for
                `completion/complete`.

        Returns:
            A decorator returning the function unchanged.

        Raises:
            ValueError: The template is malformed, the function's parameters do not fit it,
                or the URI is published already.
            toolwire.UserError: `icons` is not a list of well-formed icons (the message
                names the resource and what is wrong).
        """

        def register(func: F) -> F:
            self.add_resource(
                uri,
                func,
                name=name,
                title=title,
                description=description,
                mime_type=mime_type,
                size=size,
                annotations=annotations,
                icons=icons,
                meta=meta,
                completers=completers,
            )
            return func

        return register

    def add_resource(
        self,
        uri: str,
        source: Callable[..., Any] | str | bytes,
        *,
        mime_type: str | None = None,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        size: int | None = None,
        annotations: Mapping[str, Any] | None = None,
        icons: Iterable[Mapping[str, Any]] | None = None,
        meta: Mapping[str, Any] | None = None,
        completers: Mapping[str, Callable[..., Any]] | None = None,
    ) -> None:
        """Publish a resource or template, as `resource` does; `source` may also be fixed
        text or bytes (then `name` defaults to the URI).

        Raises:
            ValueError: As `resource`.
            TypeError: `source` is neither a function, text nor bytes.
            toolwire.UserError: As `resource`.
        """
        # Imported here: a server that publishes no resource never loads them.
        from .protocol.icons import normalize_icons
        from .protocol.resource_reading import FunctionReader
        from .protocol.resource_registry import Described, FixedResource, TemplatedResource
        from .protocol.uri_template import UriTemplate

        template = UriTemplate.parse(uri)
        if isinstance(source, str | bytes):
            if template.is_template:
                raise ValueError(f"resource template {uri!r} needs a function, not fixed contents")
            fixed = source
            source = lambda: fixed  # noqa: E731
            name = name or uri
        if not callable(source):
            raise TypeError(
                f"resource {uri!r}: expected a function, text or bytes, not {type(source).__name__}"
            )
        reader = FunctionReader(source, template, mime_type)
        label = f"resource template {uri!r}" if template.is_template else f"resource {uri!r}"
        described = Described(
            name=name or getattr(source, "__name__", None) or uri,
            title=title,
            description=description if description is not None else _summary(source),
            mime_type=mime_type,
            size=size,
            annotations=annotations,
            icons=normalize_icons(icons, label),
            meta=meta,
        )
        if template.is_template:
            unknown = set(completers or ()) - set(template.variables)
            if unknown:
                raise ValueError(
                    f"resource template {uri!r}: completers name no variable of it: "
                    + ", ".join(sorted(unknown))
                )
            entry: FixedResource | TemplatedResource = TemplatedResource(
                template, described, reader, dict(completers or {})
            )
        else:
            if completers:
                raise ValueError(f"resource {uri!r} has no variables to complete")
            entry = FixedResource(uri, described, reader)
        self.resource_registry.add(entry)

    def add_directory_resources(
        self,
        root: str | Path,
        uri_prefix: str = "file:///",
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        max_listed: int = 1000,
        max_bytes: int = 16 * 1024 * 1024,
        include_hidden: bool = False,
    ) -> DirectoryResources:
        """Serve the files under `root`, read-only, as resources under `uri_prefix`.

        `uri_prefix + "notes/todo.md"` reads `root/notes/todo.md`. URIs are matched against
        the prefix and checked segment by segment, never handed to the file system as given:
        anything that would leave `root` (`..`, encoded or not, absolute paths, backslashes,
        NUL bytes, symbolic links pointing out) is refused with the resource-not-found error,
        as is a file larger than `max_bytes`. Text files are sent as text, others as blobs.

        A relative `root` is taken from the server's `root_path`: by default the directory of
        the module that builds the server (as Flask does), not the working directory, which is
        wherever a client happens to start the server.

        Args:
            root: The directory (it must exist); relative to the server's `root_path`.
            uri_prefix: What the URIs start with; it must end with `/`.
            name: The template's name (default: the directory's name).
            title: A human-readable title.
            description: What the files are.
            mime_type: One MIME type for every file (default: guessed from each name).
            max_listed: How many files `resources/list` shows at most (the rest stay
                readable; a warning is logged once when the listing is cut).
            max_bytes: The largest file served.
            include_hidden: Serve and list names starting with `.` too (`.env`, `.git` are
                refused by default).

        Returns:
            The `DirectoryResources` serving it (its `template` is what was published).

        Raises:
            ValueError: `root` is not a directory, or the prefix is unusable.
        """
        from .protocol.resource_files import DirectoryResources
        from .protocol.resource_registry import Described, TemplatedResource

        directory = DirectoryResources(
            self.root_path / Path(root),
            uri_prefix,
            mime_type=mime_type,
            max_listed=max_listed,
            max_bytes=max_bytes,
            include_hidden=include_hidden,
        )
        described = Described(
            name=name or directory.root.name or str(directory.root),
            title=title,
            description=description,
            mime_type=mime_type,
        )
        self.resource_registry.add(
            TemplatedResource(directory.template, described, directory, lister=directory.list_files)
        )
        return directory

    def remove_resource(self, uri: str) -> None:
        """Stop publishing the resource with this URI (or the template with this text);
        connected clients are told the list changed.

        Raises:
            KeyError: Nothing is published under it.
        """
        self.resource_registry.remove(uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Tell the clients that follow `uri` (`resources/subscribe`, or a 2026-07-28 listen
        stream naming it) that its contents changed; they read it again if they care."""
        self.resource_registry.updated(uri)

    def _resource_updated(self, uri: str) -> None:
        self._announcer.tell(lambda session: session.resource_updated(uri))

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """Read a published resource as a client would: its `contents` items.

        Raises:
            toolwire.protocol.jsonrpc.ProtocolError: What `resources/read` would answer
                (not found, invalid template values, the function failed).
        """
        from .protocol.resources import read_contents

        return await read_contents(self, uri, None)  # type: ignore[arg-type]

    def _resources_changed(self) -> None:
        self._announcer.tell(_tell_resources_changed)


def _summary(func: Callable[..., Any]) -> str | None:
    """What a function's docstring says before its sections (`Args:` and the rest), as a
    tool's description is; the parameters are described by the template, not here."""
    if not getattr(func, "__doc__", None):
        return None
    from .schema.docstrings import document_function

    try:
        return document_function(func).description
    except AttributeError:  # a callable object without a `__name__`
        import inspect

        return inspect.getdoc(func)


async def _tell_resources_changed(session: OpenSession) -> None:
    await session.resources_changed()
