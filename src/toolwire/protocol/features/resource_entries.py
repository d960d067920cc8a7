"""What `Server.resource`, `add_resource` and `add_directory_resources` publish: registry
entries built from a function, fixed text or bytes, or a directory, with every option checked
before anything is published, so that a bad option leaves the registry as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..wire.icons import normalize_icons
from .resource_files import DirectoryResources
from .resource_reading import FunctionReader
from .resource_registry import Described, FixedResource, TemplatedResource
from .uri_template import UriTemplate

__all__ = ["directory_resource", "registered_resource"]


def registered_resource(
    uri: str,
    source: Callable[..., Any] | str | bytes,
    *,
    mime_type: str | None,
    name: str | None,
    title: str | None,
    description: str | None,
    size: int | None,
    annotations: Mapping[str, Any] | None,
    icons: Iterable[Mapping[str, Any]] | None,
    meta: Mapping[str, Any] | None,
    completers: Mapping[str, Callable[..., Any]] | None,
) -> FixedResource | TemplatedResource:
    """The entry publishing `source` at `uri` (a template when `uri` has `{...}` variables).

    Raises:
        ValueError: The template is malformed, the function does not fit it, fixed contents
            were given for a template, or `completers` name no variable of it.
        TypeError: `source` is neither a function, text nor bytes.
        toolwire.UserError: `icons` is malformed.
    """
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
    if not template.is_template:
        if completers:
            raise ValueError(f"resource {uri!r} has no variables to complete")
        return FixedResource(uri, described, reader)
    unknown = set(completers or ()) - set(template.variables)
    if unknown:
        raise ValueError(
            f"resource template {uri!r}: completers name no variable of it: "
            + ", ".join(sorted(unknown))
        )
    return TemplatedResource(template, described, reader, dict(completers or {}))


def directory_resource(
    root: Path,
    uri_prefix: str,
    *,
    name: str | None,
    title: str | None,
    description: str | None,
    mime_type: str | None,
    max_listed: int,
    max_bytes: int,
    include_hidden: bool,
) -> tuple[DirectoryResources, TemplatedResource]:
    """The files under `root` as one template, `uri_prefix{+path}`, and what serves them.

    Raises:
        ValueError: `root` is not a directory, or the prefix or a bound is unusable.
    """
    directory = DirectoryResources(
        root,
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
    entry = TemplatedResource(directory.template, described, directory, lister=directory.list_files)
    return directory, entry


def _summary(func: Callable[..., Any]) -> str | None:
    """What a function's docstring says before its sections (`Args:` and the rest), as a
    tool's description is; the parameters are described by the template, not here."""
    if not getattr(func, "__doc__", None):
        return None
    from ...schema.docstrings import document_function

    try:
        return document_function(func).description
    except AttributeError:  # a callable object without a `__name__`
        import inspect

        return inspect.getdoc(func)
