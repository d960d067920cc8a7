"""A directory served read-only as resources: `<prefix><relative path>` reads `<root>/<path>`. The
matched path is checked segment by segment (-32602 naming the reason) and resolved inside the root
by descriptor (`toolwire.paths.Root`), so nothing outside it is ever opened; a path naming nothing
is the ordinary not-found error. Unless hidden files are included, neither the path asked for nor
the file it leads to may be hidden, so a link cannot serve a dotfile, and the listing leaves out
what a read would refuse. UTF-8 text goes out as text, the rest as blobs."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...paths import Entry, PathError, PathKindError, PathNotFoundError, PathOutsideError, Root
from ...tools.threads import run_sync_within
from .registry import optional_text
from .resource_reading import NOT_FOUND, InvalidResourceParams, contents_of
from .resource_registry import Described, FixedResource, TemplatedResource
from .uri_template import UriTemplate

if TYPE_CHECKING:
    import anyio

    from ...tools.threads import SyncBudget

__all__ = ["DirectoryResources"]

logger = logging.getLogger("toolwire")

_MAX_SCANNED = 100_000  # directory entries looked at for one listing
_SURROGATES = re.compile("[\ud800-\udfff]")  # how a file name's bytes that are not UTF-8 decode
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "image/svg+xml")


class DirectoryResources:
    """Reads (and lists) the files under one directory: the reader of its template. The
    options are `Server.add_directory_resources`'s; a ValueError when `root` is not a directory
    or `uri_prefix` does not end with `/` or holds a brace."""

    takes_context = False  # a read needs no `ToolContext`

    def __init__(
        self,
        root: str | Path,
        uri_prefix: str = "file:///",
        *,
        mime_type: str | None = None,
        max_listed: int = 1000,
        max_bytes: int = 16 * 1024 * 1024,
        include_hidden: bool = False,
    ) -> None:
        try:
            self._root = Root(root, read_only=True)
        except PathError:
            raise ValueError(f"directory resources: {str(root)!r} is not a directory") from None
        if not isinstance(uri_prefix, str):
            raise ValueError(
                f"directory resources: uri_prefix must be a string, not {type(uri_prefix).__name__}"
            )
        if not uri_prefix.endswith("/") or "{" in uri_prefix or "}" in uri_prefix:
            raise ValueError(
                f"directory resources: uri_prefix {uri_prefix!r} must end with '/' and "
                "hold no '{' or '}'"
            )
        if max_listed < 0 or max_bytes < 0:
            raise ValueError("directory resources: max_listed and max_bytes must be >= 0")
        self.root = Path(self._root.path)
        self.uri_prefix = uri_prefix
        self.template = UriTemplate.parse(uri_prefix + "{+path}")
        self.mime_type = mime_type
        self.max_listed = max_listed
        self.max_bytes = max_bytes
        self.include_hidden = include_hidden
        self._warned_cut = False

    def published(
        self, name: str | None, title: str | None, description: str | None
    ) -> TemplatedResource:
        """The template `uri_prefix{+path}` this directory reads and lists, as published."""
        label = f"directory resources {self.uri_prefix!r}"
        optional_text(name, f"name of {label}")
        described = Described(
            name=name or self.root.name or str(self.root),
            title=title,
            description=description,
            mime_type=self.mime_type,
        ).check(label)
        return TemplatedResource(self.template, described, self, lister=self.list_files)

    async def read(
        self,
        uri: str,
        values: Mapping[str, str],
        limiter: SyncBudget | anyio.CapacityLimiter | None,
        context: Any = None,
    ) -> list[dict[str, Any]]:
        """The contents of the file `uri` names (see the module docstring)."""
        return await run_sync_within(limiter, self._read, (uri, values["path"]), {})

    def list_files(self) -> list[FixedResource]:
        """The files under the root, at most `max_listed`, in a stable order (a directory's
        files by name, then its subdirectories', depth first)."""
        listed: list[FixedResource] = []
        scanned = 0
        walk = self._root.walk(enter=lambda relative: self._refusal(relative) is None)
        with contextlib.closing(walk):
            for base, entries in walk:
                for entry in entries:
                    scanned += 1
                    if scanned > _MAX_SCANNED:
                        return listed
                    relative = f"{base}/{entry.name}" if base else entry.name
                    size = self._listed_size(relative, entry)
                    if size is None:
                        continue
                    if len(listed) >= self.max_listed:
                        if not self._warned_cut:
                            self._warned_cut = True
                            logger.warning(
                                "directory resources %s: listing only the first %d files",
                                self.root,
                                self.max_listed,
                            )
                        return listed
                    uri = self.template.expand({"path": relative})
                    mime_type = self.mime_type or _guess(relative)
                    listed.append(
                        FixedResource(uri, Described(relative, mime_type=mime_type, size=size))
                    )
        return listed

    def _listed_size(self, relative: str, entry: Entry) -> int | None:
        """The size of the regular file `entry` (or a link to one), None unless a read would
        serve it."""
        if self._refusal(relative) is not None or entry.kind not in ("file", "symlink"):
            return None
        if entry.kind == "file":
            return entry.size
        try:
            status = self._root.stat(relative)  # refuses a link out
            if not self.include_hidden and _hidden(self._root.resolve(relative)):
                return None  # as a read refuses it
        except PathError:
            return None
        return status.st_size if stat.S_ISREG(status.st_mode) else None

    def _refusal(self, relative: str) -> str | None:
        if "\x00" in relative:
            return "it holds a NUL byte"
        if "\\" in relative:
            return "it holds a backslash"
        if not relative.isascii() and _SURROGATES.search(relative):
            return "its name is not UTF-8"  # a file name's stray bytes: no URI can name it
        if relative.startswith("/"):
            return "it is an absolute path"
        for segment in relative.split("/"):
            if segment == "":
                return "it has an empty path segment"
            if segment in (".", ".."):
                return f"it has a {segment!r} path segment"
            if segment.startswith(".") and not self.include_hidden:
                return "it names a hidden file or directory"
        return None

    def _read(self, uri: str, relative: str) -> list[dict[str, Any]]:
        def refused(reason: str) -> InvalidResourceParams:
            return InvalidResourceParams(
                f"Refused resource URI {self.uri_prefix + relative!r}: {reason}"
            )

        reason = self._refusal(relative)
        if reason is not None:
            raise refused(reason)
        try:
            real = relative
            if not self.include_hidden:  # what a link leads to is judged, then opened
                real = self._root.resolve(relative)
                if _hidden(real):
                    raise refused("it leads to a hidden file or directory (a symbolic link)")
            file = self._root.open_file(real)
        except (PathNotFoundError, PathKindError):
            return NOT_FOUND  # nothing there, a directory, a FIFO, a device: not a resource
        except PathOutsideError:
            raise refused("it leads outside the directory (a symbolic link)") from None
        except PathError as error:  # a loop, a permission, ...
            raise InvalidResourceParams(
                f"Refused resource URI {uri!r}: it cannot be opened ({error.reason})"
            ) from None
        with file:
            size = os.fstat(file.fileno()).st_size
            if size > self.max_bytes:
                raise InvalidResourceParams(
                    f"Refused resource URI {uri!r}: the file has {size} bytes, "
                    f"more than the {self.max_bytes} served"
                )
            data = file.read(self.max_bytes + 1)[: self.max_bytes]
        mime_type = self.mime_type or _guess(relative)
        if mime_type is None or _is_text(mime_type):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                if mime_type is not None or "\x00" not in text:
                    return contents_of(uri, text, mime_type or "text/plain")
        return contents_of(uri, data, mime_type or "application/octet-stream")


def _hidden(relative: str) -> bool:
    """Whether a path relative to the root names a hidden file or passes a hidden directory."""
    return any(segment.startswith(".") for segment in relative.split("/"))


def _guess(name: str) -> str | None:
    import mimetypes

    return mimetypes.guess_type(name, strict=False)[0]


def _is_text(mime_type: str) -> bool:
    return mime_type.startswith("text/") or mime_type in _TEXT_TYPES or mime_type.endswith("+json")
