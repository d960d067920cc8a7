"""Which directories a call may touch, and how a path given by a client becomes a place there.

The directories on the command line are a ceiling (`toolwire.paths.Root`s). In the handshake
era a client that declares `roots` is asked for them on every call, so a change is seen at
once and each call works with one consistent set: each client root inside a command-line
directory narrows access to it, one that holds a command-line directory keeps that directory,
any other is ignored, and an empty list revokes everything (mode "narrow"; "nonempty" keeps
the command line for an empty list, as clients that declare roots but hold none need, and
"ignore" never asks). The 2026-07-28 era has no roots:
the command line alone applies. Deny patterns (secrets) apply to every component of the path
as given and as resolved.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from toolwire import ClientCapabilityError, NoBackChannelError, ToolContext
from toolwire.paths import PathError, PathNotFoundError, PathOutsideError, Root, Roots

from ._globs import NameSet

__all__ = ["CLIENT_ROOTS", "DEFAULT_DENY", "Access", "FilesError", "Limits"]

logger = logging.getLogger("toolwire.files")

DEFAULT_DENY = (".env", ".env.*", "*.pem", "id_*")
CLIENT_ROOTS = ("narrow", "nonempty", "ignore")
_DRIVE = re.compile(r"^[A-Za-z]:(?:[\\/]|$)")
_ROOTS_TIMEOUT = 10.0
_CACHED_SETS = 16
_MAX_CLIENT_ROOTS = 32  # distinct roots one answer may list: each holds a directory open


class FilesError(ValueError):
    """A tool refused or failed; the message (naming the path and why) goes to the model."""


@dataclass(frozen=True)
class Limits:
    """Bounds on what one call may read or list.

    Attributes:
        max_read_bytes: The most bytes of text one read returns (per file).
        max_media_bytes: The largest file `read_media_file` sends.
        max_total_bytes: The most bytes `read_multiple_files` returns in all.
        max_entries: The most entries a listing or tree shows.
        max_depth: The deepest a tree or search goes.
        max_results: The most matches a search returns.
        search_seconds: How long a search or tree may walk.
        max_line_chars: The longest line a content search looks at (longer ones are cut).
    """

    max_read_bytes: int = 4 * 1024 * 1024
    max_media_bytes: int = 16 * 1024 * 1024
    max_total_bytes: int = 16 * 1024 * 1024
    max_entries: int = 10_000
    max_depth: int = 64
    max_results: int = 1_000
    search_seconds: float = 30.0
    max_line_chars: int = 4096


class Access:
    """The command-line roots, the deny list and the limits of one server.

    Args:
        roots: The command-line directories.
        deny: Name patterns never read, written or listed.
        limits: The bounds.
        client_roots: "narrow", "nonempty" or "ignore" (see the module docstring).
    """

    def __init__(
        self,
        roots: list[Root],
        deny: tuple[str, ...],
        limits: Limits,
        client_roots: str = "narrow",
    ) -> None:
        if client_roots not in CLIENT_ROOTS:
            raise ValueError(f"client_roots must be one of {CLIENT_ROOTS}, not {client_roots!r}")
        self.client_roots = client_roots
        self.cli = Roots(roots)
        # A read-only directory inside a writable one stays unchanged through the writable one.
        for writable in (root for root in roots if not root.read_only):
            for kept in (root for root in roots if root.read_only):
                writable.protect(kept)
        self.deny = deny
        self._denied = NameSet(deny)
        self.limits = limits
        # The recent answers' roots. A set that leaves is not closed: a call may still be using
        # it, and its descriptor's number must not be reused under that call; each root closes
        # itself when the last call holding it lets go.
        self._sets: OrderedDict[tuple[str, ...], Roots] = OrderedDict()
        # Subdirectory roots made for clients, shared by every set naming the same directory.
        self._subroots: weakref.WeakValueDictionary[tuple[int, str], Root] = (
            weakref.WeakValueDictionary()
        )
        self._lock = threading.Lock()

    async def roots_for(self, ctx: ToolContext[Any]) -> Roots:
        """The roots this call may use (see the module docstring)."""
        version = ctx.context if isinstance(ctx.context, str) else ""
        if version >= "2026" or self.client_roots == "ignore":
            return self.cli
        try:
            listed = await ctx.list_roots(timeout=_ROOTS_TIMEOUT)
        except (ClientCapabilityError, NoBackChannelError):
            return self.cli
        except Exception as error:
            raise FilesError(f"the client's roots could not be read ({error})") from None
        uris = tuple(sorted({str(item.get("uri", "")) for item in listed}))
        if len(uris) > _MAX_CLIENT_ROOTS:
            raise FilesError(
                f"the client lists {len(uris)} roots; this server takes at most "
                f"{_MAX_CLIENT_ROOTS} (or start it with --client-roots ignore)"
            )
        if not uris and self.client_roots == "nonempty":
            return self.cli
        return self._narrowed(uris)

    def _narrowed(self, uris: tuple[str, ...]) -> Roots:
        with self._lock:
            cached = self._sets.get(uris)
            if cached is not None:
                self._sets.move_to_end(uris)
                return cached
            chosen: dict[str, Root] = {}
            for uri in uris:
                for root in self._within(uri):
                    chosen.setdefault(root.path, root)
            narrowed = Roots(list(chosen.values()))
            self._sets[uris] = narrowed
            if len(self._sets) > _CACHED_SETS:
                self._sets.popitem(last=False)
            logger.info("client roots %s -> allowed %s", list(uris), narrowed.paths)
            return narrowed

    def _within(self, uri: str) -> list[Root]:
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(uri)
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            return []
        path = unquote(parts.path)
        if not path.startswith("/") or "\x00" in path:
            return []
        found = []
        for number, root in enumerate(self.cli):
            inside = root.inside_parts(path)
            if inside is not None:
                try:
                    sub = self._subroot(number, root, "/".join(inside)) if inside else root
                except PathError:
                    continue
                found.append(sub)
                continue
            holder = [part for part in path.split("/") if part not in ("", ".")]
            if any(prefix[: len(holder)] == holder for prefix in root.prefixes):
                found.append(root)
        return found

    def _subroot(self, number: int, root: Root, relative: str) -> Root:
        """The root for the directory `relative` in the command line's root `number`, shared
        while anything holds it (the caller holds `self._lock`)."""
        key = (number, root.resolve(relative))
        shared = self._subroots.get(key)
        if shared is not None and os.path.samestat(
            root.stat(relative), os.fstat(shared.fileno())
        ):  # still the directory at that path
            return shared
        sub = root.subroot(relative)
        self._subroots[key] = sub
        return sub

    def locate(self, roots: Roots, path: str) -> tuple[Root, str]:
        """The root `path` lies in and the path relative to it, checked against the deny list.

        Raises:
            FilesError: The path is refused (outside, denied, a Windows path, ...).
        """
        if not isinstance(path, str) or not path:
            raise FilesError("a path must be a non-empty string")
        given = path
        if path == "~" or path.startswith("~/"):
            path = os.path.expanduser("~") + path[1:]
        if _DRIVE.match(path):
            raise FilesError(f"{given!r}: a Windows drive path cannot name a file on this host")
        try:
            root, relative = roots.locate(path)
            self.check(root, relative, given)
        except PathOutsideError as error:
            hint = ""
            if not roots.paths and self.client_roots == "narrow":
                hint = (
                    " (the client's roots allow none of the server's directories; a client "
                    "that lists no roots at all needs the server started with "
                    "--client-roots nonempty)"
                )
            raise FilesError(f"Access denied - {error}{hint}") from None
        except PathError as error:
            raise FilesError(str(error)) from None
        return root, relative

    def check(self, root: Root, relative: str, shown: str) -> None:
        """Refuse a path one of whose components, as given or resolved, is denied.

        Raises:
            FilesError: A component matches a deny pattern.
            PathError: The path cannot be resolved inside the root.
        """
        if not self.deny:
            return
        try:
            resolved = root.resolve(relative)
        except PathNotFoundError:  # a directory on the way is missing: nothing to resolve yet
            resolved = relative
        for candidate in (relative, resolved):
            for part in candidate.split("/"):
                if part and self.hidden(part):
                    raise FilesError(
                        f"{shown!r}: access to {part!r} is denied by the server's deny list"
                    )

    def hidden(self, name: str) -> bool:
        """Whether a listing must leave `name` out."""
        return self._denied.matches(name)
