"""The filesystem MCP server: the reference server's tools, names and parameters, on
`toolwire.paths` confinement, with structured results and bounded reads, listings and searches.

`build_server(access, read_only=...)` returns a `toolwire.Server`; `cli.main` parses the
command line and runs it. Every path goes through `Access.locate` (roots, deny list) and then a
`Root` (resolution by descriptor); every failure reaches the model as a tool error naming the
path and the reason.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import os
import re
import stat
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, Literal, TypeVar

import anyio

from toolwire import (
    CallInfo,
    EmbeddedResource,
    ModelBehaviorError,
    Server,
    ToolContext,
    ToolResult,
    default_tool_error_function,
    function_tool,
)
from toolwire.paths import Entry, PathError, PathNotFoundError, Root

from ._access import Access, FilesError
from ._edits import EditError, TextFile, apply_edits, sha256, unified_diff
from ._globs import Glob, excluded
from ._matcher import TimeUp, matcher_for
from ._schemas import EDITS, OUTPUTS, PARAMS

__all__ = ["build_server"]

T = TypeVar("T")
Ctx = ToolContext[Any]

_READ = {"readOnlyHint": True, "openWorldHint": False}
# What `mimetypes` lacks or spells differently on some systems, as the reference names them.
_MEDIA = {ext: "audio/" + ext[1:] for ext in (".wav", ".ogg", ".flac")} | {".webp": "image/webp"}
_BINARY_SNIFF = 8192
_INLINE_BYTES = 256 * 1024  # smaller files are read on the event loop, larger in a thread
_MATCH_BATCH = 1 << 20  # characters of text handed to the matcher at once
_DIRECTORY_ENTRIES = 100_000  # entries read from one directory (memory stays bounded)


Result = dict[str, Any]


@dataclasses.dataclass(frozen=True, slots=True)
class _EncodedResource(EmbeddedResource):
    """An embedded file whose base64 form is already at hand, sent as it is."""

    encoded: str = ""

    def contents(self) -> dict[str, Any]:
        return {"uri": self.uri, "mimeType": self.mime_type, "blob": self.encoded}


# ---------------------------------------------------------------- helpers


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, tz=UTC).isoformat()


def _kind(entry_kind: str) -> Literal["file", "directory", "symlink", "other"]:
    if entry_kind in ("file", "directory", "symlink"):
        return entry_kind  # type: ignore[return-value]
    return "other"


def _size_text(size: int) -> str:
    units = ["B", "KB", "MB", "GB", "TB"]
    if size <= 0:
        return "0 B"
    index = 0
    value = float(size)
    while value >= 1024 and index < len(units) - 1:
        value /= 1024
        index += 1
    return f"{size} B" if index == 0 else f"{value:.2f} {units[index]}"


def _split_lines(text: str) -> list[str]:
    """Lines with their breaks; a final line without one is kept as it is."""
    parts = text.split("\n")
    last = parts.pop()
    lines = [part + "\n" for part in parts]
    if last:
        lines.append(last)
    return lines


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


def _is_binary(data: bytes) -> bool:
    return data.find(b"\x00", 0, _BINARY_SNIFF) >= 0


class _QuietRefusals(logging.Filter):
    """Refusals are this server's everyday answers: logged in one line, without a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], FilesError | PathError | EditError):
            record.exc_info = None
            record.exc_text = None
        return True


def _failure(ctx: Any, error: Exception) -> str:
    if isinstance(error, FilesError | PathError | EditError):
        return f"Error: {error}"
    if isinstance(error, ModelBehaviorError):  # the arguments: trying again will not help
        return f"Error: {error}; check each argument against the tool's input schema"
    return default_tool_error_function(ctx, error)


async def _thread(func: Callable[..., T], *args: Any) -> T:
    # A cancelled call (the client's cancel, the tool's timeout) answers at once; the worker
    # finishes on its own, bounded by the work's own limits.
    return await anyio.to_thread.run_sync(func, *args, abandon_on_cancel=True)


# ---------------------------------------------------------------- the server


def build_server(
    access: Access, *, read_only: bool = False, name: str = "toolwire-files"
) -> Server:
    """The filesystem server for `access`.

    Args:
        access: Roots, deny list and limits.
        read_only: List only the tools that change nothing.
        name: The server's name.

    Returns:
        The server, ready to `run()`.
    """
    from . import __version__

    limits = access.limits
    calls_logger = logging.getLogger("toolwire.tools")
    if not any(isinstance(known, _QuietRefusals) for known in calls_logger.filters):
        calls_logger.addFilter(_QuietRefusals())
    server = Server(
        name,
        version=__version__,
        instructions=(
            "Read, search and edit files inside the allowed directories "
            "(list_allowed_directories). Paths may be absolute or relative to the first "
            "allowed directory."
        ),
        context_factory=_protocol_version,
    )

    def publish(func: Callable[..., Any], annotations: dict[str, Any], title: str) -> None:
        built = function_tool(func, failure_error_function=_failure, strict_mode=False)
        schema = copy.deepcopy(built.params_json_schema)
        for param, described in PARAMS.get(built.name, {}).items():
            schema["properties"][param]["description"] = described
        if built.name == "edit_file":  # the fast schema path types `edits` as a plain list
            schema["properties"]["edits"] = {**EDITS, "title": "Edits"}
        built = dataclasses.replace(built, params_json_schema=schema)
        # The walking tools stop themselves at `search_seconds`; a pathological regular
        # expression on one line cannot, so the call itself is bounded a little later.
        walks = built.name in ("directory_tree", "search_files", "search_file_contents")
        server.add_tool(
            built,
            title=title,
            annotations=annotations,
            output_schema=OUTPUTS.get(built.name),
            timeout=limits.search_seconds + 5 if walks else None,
        )

    def tool(annotations: dict[str, Any], title: str) -> Callable[[Callable[..., Any]], Any]:
        def register(func: Callable[..., Any]) -> Any:
            publish(func, annotations, title)
            return func

        return register

    def write_tool(annotations: dict[str, Any], title: str) -> Callable[[Callable[..., Any]], Any]:
        def register(func: Callable[..., Any]) -> Any:
            if not read_only:
                publish(func, {"readOnlyHint": False, "openWorldHint": False, **annotations}, title)
            return func

        return register

    async def place(ctx: Ctx, path: str) -> tuple[Root, str]:
        return access.locate(await access.roots_for(ctx), path)

    # ------------------------------------------------------------ reading

    async def read_text(
        ctx: Ctx,
        path: str,
        head: int | None = None,
        tail: int | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> Result:
        """Read a text file (UTF-8; a BOM is dropped, invalid bytes are replaced).

        Use `head`/`tail` for the first or last lines, or `offset`/`limit` for a line range.
        Reads are bounded; a longer file is cut at a line break and `truncated` says so.
        Only works within allowed directories."""
        for label, value in (("head", head), ("tail", tail), ("offset", offset), ("limit", limit)):
            if value is not None and value < (1 if label == "offset" else 0):
                raise FilesError(f"{label} must be a positive number, not {value}")
        if head is not None and tail is not None:
            raise FilesError("Cannot specify both head and tail parameters simultaneously")
        if tail is not None and (offset is not None or limit is not None):
            raise FilesError("tail cannot be combined with offset or limit")
        root, relative = await place(ctx, path)
        opened = _open(root, relative, path)
        cap = limits.max_read_bytes
        if opened[2] <= _INLINE_BYTES:  # small: no worker thread (a regular file, never a FIFO)
            return _read_opened(opened, head, tail, offset, limit, cap)
        return await _thread(_read_opened, opened, head, tail, offset, limit, cap)

    tool(_READ, "Read Text File")(_renamed(read_text, "read_text_file"))
    tool(_READ, "Read File (Deprecated)")(
        _renamed(read_text, "read_file", "Deprecated (use read_text_file). ")
    )

    @tool(_READ, "Read Media File")
    async def read_media_file(ctx: Ctx, path: str) -> ToolResult[Result]:
        """Read an image, audio or other file and return it as base64 content with its MIME
        type (images as image content, audio as audio, others as an embedded resource).
        Only works within allowed directories."""
        root, relative = await place(ctx, path)
        data = await _thread(_read_bytes, root, relative, path, limits.max_media_bytes)
        extension = os.path.splitext(relative)[1].lower()
        import base64
        import mimetypes
        from pathlib import PurePosixPath

        mime = _MEDIA.get(extension) or mimetypes.guess_type(relative, strict=False)[0]
        mime = mime or "application/octet-stream"
        encoded = base64.b64encode(data).decode("ascii")
        # The structured result is the content block itself, as the reference server sends it.
        kind = mime.split("/", 1)[0]
        if kind in ("image", "audio"):
            block: Result = {"type": kind, "data": encoded, "mimeType": mime}
            url = f"data:{mime};base64,{encoded}"
            from toolwire import ToolOutputFileContent, ToolOutputImage  # pydantic: on first use

            item: Any = (
                ToolOutputImage(image_url=url)
                if kind == "image"
                else ToolOutputFileContent(file_data=url, filename=os.path.basename(relative))
            )
        else:
            uri = PurePosixPath(root.absolute(relative)).as_uri()
            item = _EncodedResource(uri=uri, blob=data, mime_type=mime, encoded=encoded)
            block = {"type": "resource", "resource": item.contents()}
        return ToolResult({"content": [block]}, content=[item])

    @tool(_READ, "Read Multiple Files")
    async def read_multiple_files(ctx: Ctx, paths: list[str]) -> Result:
        """Read several text files at once; a failed read does not stop the others. Each
        file's content is headed by its path. Bounded in total size. Only works within
        allowed directories."""
        if not paths:
            raise FilesError("paths must hold at least one path")
        roots = await access.roots_for(ctx)
        budget = limits.max_total_bytes
        files: list[Result] = []
        for given in paths:
            try:
                root, relative = access.locate(roots, given)
                cap = max(0, min(limits.max_read_bytes, budget))
                read = await _thread(_read_text, root, relative, given, None, None, None, None, cap)
            except (FilesError, PathError) as error:
                files.append(dict(path=given, content=None, error=str(error), truncated=False))
                continue
            budget -= len(read["content"].encode("utf-8"))
            files.append(
                dict(path=given, content=read["content"], error=None, truncated=read["truncated"])
            )
        text = "\n---\n".join(
            f"{item['path']}: Error - {item['error']}"
            if item["error"] is not None
            else f"{item['path']}:\n{item['content']}\n"
            for item in files
        )
        return dict(content=text, files=files)

    # ------------------------------------------------------------ changing

    @write_tool({"idempotentHint": True, "destructiveHint": True}, "Write File")
    async def write_file(ctx: Ctx, path: str, content: str) -> Result:
        """Create a new file or completely overwrite an existing file with new content (UTF-8),
        atomically; an existing file keeps its permissions. Only works within allowed
        directories."""
        root, relative = await place(ctx, path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as error:
            bad = error.object[error.start : error.end]
            raise FilesError(
                f"{path!r}: the content holds {bad!r}, which UTF-8 cannot encode"
            ) from None
        lock = _LOCKS.of(root, relative)
        if len(data) <= _INLINE_BYTES and lock.acquire(blocking=False):
            try:  # small and uncontended: no worker thread
                _store(root, relative, path, data)
            finally:
                lock.release()
        else:
            await _thread(_write, root, relative, path, data)
        return dict(content=f"Successfully wrote to {path}", path=root.absolute(relative))

    @write_tool({"idempotentHint": False, "destructiveHint": False}, "Append to File")
    async def append_file(ctx: Ctx, path: str, content: str) -> Result:
        """Append text to a file (created when missing), keeping its encoding, BOM and line
        endings. Only works within allowed directories."""
        root, relative = await place(ctx, path)
        await _thread(_append, root, relative, path, content, limits.max_total_bytes)
        return dict(content=f"Successfully appended to {path}", path=root.absolute(relative))

    @write_tool({"idempotentHint": False, "destructiveHint": True}, "Edit File")
    async def edit_file(
        ctx: Ctx,
        path: str,
        edits: list[Any],
        dryRun: bool = False,
        expectedHash: str | None = None,
    ) -> Result:
        """Replace exact text in a file; returns a git-style diff. Each oldText must match
        exactly once (an ambiguous match is an error naming its lines; leading and trailing
        whitespace per line is forgiven when nothing matches exactly). Encoding, BOM and
        CRLF line endings are kept. Only works within allowed directories."""
        root, relative = await place(ctx, path)
        pairs = _edit_pairs(edits)
        if not pairs:
            raise FilesError("edits must hold at least one edit")
        return await _thread(
            _edit, root, relative, path, pairs, dryRun, expectedHash, limits.max_read_bytes
        )

    @write_tool({"idempotentHint": True, "destructiveHint": False}, "Create Directory")
    async def create_directory(ctx: Ctx, path: str) -> Result:
        """Create a directory, with the missing ones on its way; an existing directory is
        fine. Only works within allowed directories."""
        root, relative = await place(ctx, path)
        _mkdir(root, relative, path)
        return dict(content=f"Successfully created directory {path}", path=root.absolute(relative))

    @write_tool({"idempotentHint": False, "destructiveHint": True}, "Move File")
    async def move_file(ctx: Ctx, source: str, destination: str) -> Result:
        """Move or rename a file or directory. Fails if the destination exists. Both source
        and destination must be within allowed directories."""
        roots = await access.roots_for(ctx)
        root, relative = access.locate(roots, source)
        target_root, target = access.locate(roots, destination)
        await _thread(_move, root, relative, target_root, target)
        return dict(
            content=f"Successfully moved {source} to {destination}",
            path=target_root.absolute(target),
        )

    @write_tool({"idempotentHint": False, "destructiveHint": False}, "Copy File")
    async def copy_file(ctx: Ctx, source: str, destination: str) -> Result:
        """Copy a regular file. Fails if the destination exists. Both must be within allowed
        directories."""
        roots = await access.roots_for(ctx)
        root, relative = access.locate(roots, source)
        target_root, target = access.locate(roots, destination)
        data = await _thread(_read_bytes, root, relative, source, limits.max_media_bytes)
        await _thread(_create, target_root, target, destination, data)
        return dict(
            content=f"Successfully copied {source} to {destination}",
            path=target_root.absolute(target),
        )

    # ------------------------------------------------------------ listing

    @tool(_READ, "List Directory")
    async def list_directory(ctx: Ctx, path: str) -> Result:
        """List a directory's files and directories, [FILE] and [DIR] first. Bounded in
        entries. Only works within allowed directories."""
        root, relative = await place(ctx, path)
        listing = await _thread(_list, root, relative, access, limits.max_entries, False, "name")
        return listing

    @tool(_READ, "List Directory with Sizes")
    async def list_directory_with_sizes(
        ctx: Ctx, path: str, sortBy: Literal["name", "size"] = "name"
    ) -> Result:
        """List a directory with sizes and a summary. Bounded in entries. Only works within
        allowed directories."""
        root, relative = await place(ctx, path)
        return await _thread(_list, root, relative, access, limits.max_entries, True, sortBy)

    @tool(_READ, "Directory Tree")
    async def directory_tree(
        ctx: Ctx,
        path: str,
        excludePatterns: list[str] | None = None,
        maxDepth: int | None = None,
        maxEntries: int | None = None,
    ) -> Result:
        """A recursive tree of files and directories as JSON, where each entry has `name`, `type`
        (file/directory) and, for directories, `children`. Bounded in depth, entries and
        time (the result says when a bound applied). Only works within allowed directories."""
        depth = limits.max_depth if maxDepth is None else min(max(maxDepth, 0), limits.max_depth)
        entries = (
            limits.max_entries
            if maxEntries is None
            else min(max(maxEntries, 0), limits.max_entries)
        )
        root, relative = await place(ctx, path)
        return await _thread(
            _tree,
            root,
            relative,
            access,
            excludePatterns or [],
            depth,
            entries,
            limits.search_seconds,
        )

    @tool(_READ, "Search Files")
    async def search_files(
        ctx: Ctx, path: str, pattern: str, excludePatterns: list[str] | None = None
    ) -> Result:
        """Recursively find files and directories whose path relative to `path` matches a
        glob ('*.py' at the top, '**/*.py' anywhere). Returns full paths. Bounded in results
        and time. Only searches within allowed directories."""
        root, relative = await place(ctx, path)
        return await _thread(_search_names, root, relative, access, pattern, excludePatterns or [])

    @tool(_READ, "Search File Contents")
    async def search_file_contents(
        ctx: Ctx,
        path: str,
        pattern: str,
        filePattern: str | None = None,
        excludePatterns: list[str] | None = None,
        caseSensitive: bool = True,
        maxResults: int | None = None,
    ) -> Result:
        """Search file contents for a regular expression (Python syntax), line by line;
        returns path, line number and line of each match. Binary files are skipped. Bounded
        in results, line length and time. Only searches within allowed directories."""
        try:
            regex = re.compile(pattern, 0 if caseSensitive else re.IGNORECASE)
        except re.error as error:
            raise FilesError(
                f"pattern {pattern!r} is not a valid regular expression: {error}"
            ) from None
        cap = (
            limits.max_results
            if maxResults is None
            else min(max(maxResults, 1), limits.max_results)
        )
        root, relative = await place(ctx, path)
        return await _thread(
            _search_contents, root, relative, access, regex, filePattern, excludePatterns or [], cap
        )

    @tool(_READ, "Get File Info")
    async def get_file_info(ctx: Ctx, path: str) -> Result:
        """Metadata of a file or directory (size, times, permissions, type). Only works
        within allowed directories."""
        root, relative = await place(ctx, path)
        return _info(root, relative, path)

    @tool(_READ, "List Allowed Directories")
    async def list_allowed_directories(ctx: Ctx) -> Result:
        """The directories this server may access now (subdirectories included). Use it
        before trying to access files."""
        roots = await access.roots_for(ctx)
        directories = roots.paths
        text = "Allowed directories:\n" + "\n".join(directories)
        read_only_dirs = [root.path for root in roots if root.read_only]
        return dict(content=text, directories=directories, readOnly=read_only_dirs)

    return server


def _edit_pairs(edits: list[Any]) -> list[tuple[str, str]]:
    pairs = []
    for number, edit in enumerate(edits, start=1):
        if (
            not isinstance(edit, dict)
            or not isinstance(edit.get("oldText"), str)
            or not isinstance(edit.get("newText"), str)
            or set(edit) - {"oldText", "newText"}
        ):
            raise FilesError(
                f"edit {number} must be an object with string oldText and newText, "
                f"not {json.dumps(edit)[:200]}"
            )
        pairs.append((edit["oldText"], edit["newText"]))
    return pairs


# What ends a line for some reader (str.splitlines, terminals, editors) or reorders the text
# shown around it; a name holding one is quoted in the text a listing or search returns.
_UNSAFE_IN_LINES = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_BREAKS = re.compile("[\x0b\x0c\x0d\x1c-\x1e\x85\u2028\u2029]")


def _escape(found: re.Match[str]) -> str:
    return json.dumps(found.group())[1:-1]


def _line_safe(name: str) -> str:
    """`name` as one line of a listing: as it is, or JSON-quoted when it holds a line break, a
    control character or a direction override, so that no name can pass for more lines (or
    for other names) in the text the model reads."""
    if not _UNSAFE_IN_LINES.search(name) and not name.startswith('"'):
        return name
    return _UNSAFE_IN_LINES.sub(_escape, json.dumps(name, ensure_ascii=False))


def _protocol_version(info: CallInfo) -> str:
    return info.protocol_version


def _renamed(func: Callable[..., Any], name: str, prefix: str = "") -> Callable[..., Any]:
    async def renamed(*args: Any, **kwargs: Any) -> Any:
        return await func(*args, **kwargs)

    import functools

    wrapped = functools.wraps(func)(renamed)
    wrapped.__name__ = name
    wrapped.__qualname__ = name
    wrapped.__doc__ = prefix + (func.__doc__ or "")
    return wrapped


# ---------------------------------------------------------------- the work (worker threads)


def _read_bytes(root: Root, relative: str, shown: str, cap: int) -> bytes:
    try:
        return root.read_bytes(relative, max_bytes=cap)
    except PathError as error:
        raise FilesError(f"{shown!r}: {error.reason}") from None


def _open(root: Root, relative: str, shown: str) -> tuple[BinaryIO, str, int]:
    """The open file, its real absolute path and its size."""
    try:
        file = root.open_file(relative)
    except PathError as error:
        raise FilesError(f"{shown!r}: {error.reason}") from None
    return file, _real_path(root, relative, file.fileno()), os.fstat(file.fileno()).st_size


def _real_path(root: Root, relative: str, fd: int) -> str:
    """Where the open file `fd` is: the kernel's name for it (one call on Linux), else the
    path resolved again."""
    try:
        named = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        named = ""
    if named.startswith(root.path.rstrip("/") + "/"):
        return named
    return root.absolute(relative)


def _read_text(
    root: Root,
    relative: str,
    shown: str,
    head: int | None,
    tail: int | None,
    offset: int | None,
    limit: int | None,
    cap: int,
) -> Result:
    return _read_opened(_open(root, relative, shown), head, tail, offset, limit, cap)


def _read_opened(
    opened: tuple[BinaryIO, str, int],
    head: int | None,
    tail: int | None,
    offset: int | None,
    limit: int | None,
    cap: int,
) -> Result:
    file, real, size = opened
    with file:
        whole = size <= cap
        if whole:
            data = file.read(cap + 1)
            whole = len(data) <= cap
            data = data[:cap]
        elif tail is not None:
            file.seek(size - cap)
            data = file.read(cap)
        else:
            data = file.read(cap)
    digest = sha256(data) if whole else None
    # A cut read keeps whole lines only; a line longer than the bound is kept as the piece
    # read, and a result holding that piece is marked truncated.
    partial = False
    if not whole and tail is None:
        cut = data.rfind(b"\n")
        partial = cut < 0
        data = data[: cut + 1] if cut >= 0 else data
    elif not whole:
        cut = data.find(b"\n")
        partial = cut < 0
        data = data[cut + 1 :] if cut >= 0 else data
    lines = _split_lines(_decode(data))
    total = len(lines) if whole else None
    count: int | None = None
    if tail is not None:
        chosen = lines[-tail:] if tail else []
        start = (total - len(chosen) + 1) if total is not None else None
    else:
        begin = (offset or 1) - 1
        count = head if head is not None else limit
        chosen = lines[begin : begin + count] if count is not None else lines[begin:]
        start = begin + 1
    note = None
    truncated = False
    if not whole:
        asked_beyond = tail is None and (count is None or (offset or 1) - 1 + count > len(lines))
        # The piece of a long line is the last line read (from the start) or the only one
        # (from the end): returning it returns a line cut short.
        cut_line = partial and bool(chosen)
        if asked_beyond or cut_line or (tail is not None and len(chosen) < tail):
            truncated = True
            note = (
                f"the file has {size} bytes; only {len(data)} bytes were read (the server's "
                f"bound is {cap}): use offset/limit or tail to read further"
            )
    return dict(
        content="".join(chosen),
        path=real,
        startLine=start,
        lineCount=len(chosen),
        totalLines=total,
        truncated=truncated,
        sha256=digest,
        note=note,
    )


class _FileLocks:
    """One lock per file, by its real path, held by every call of this process that writes a
    file: an append or an edit reads the file and writes it back, and two of them at once on
    one file would each write over what the other added. A lock lives while a call holds it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: weakref.WeakValueDictionary[str, threading.Lock] = (
            weakref.WeakValueDictionary()
        )

    def of(self, root: Root, relative: str) -> threading.Lock:
        """The lock of the file `relative` names in `root` (links followed)."""
        try:
            key = root.absolute(relative)
        except PathError:  # refused or unreachable: the write itself will say why
            key = f"{root.path}\x00{relative}"
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.Lock()
            return lock


_LOCKS = _FileLocks()


def _write(root: Root, relative: str, shown: str, data: bytes) -> None:
    with _LOCKS.of(root, relative):
        _store(root, relative, shown, data)


def _store(root: Root, relative: str, shown: str, data: bytes) -> None:
    """Write `data` to the file (the caller holds its lock)."""
    try:
        root.write_bytes(relative, data)
    except PathNotFoundError as error:
        raise FilesError(f"{shown!r}: {error.reason} (create_directory makes it)") from None
    except PathError as error:
        raise FilesError(f"{shown!r}: {error.reason}") from None


def _mkdir(root: Root, relative: str, shown: str) -> None:
    try:
        root.mkdir(relative)
    except PathError as error:
        raise FilesError(f"{shown!r}: {error.reason}") from None


def _create(root: Root, relative: str, shown: str, data: bytes) -> None:
    try:
        root.write_bytes(relative, data, exclusive=True)
    except PathError as error:
        raise FilesError(f"{shown!r}: {error.reason}") from None


def _append(root: Root, relative: str, shown: str, content: str, cap: int) -> None:
    with _LOCKS.of(root, relative):  # read and write back as one step
        try:
            existing = root.read_bytes(relative, max_bytes=cap)
        except PathNotFoundError:
            existing = b""
        except PathError as error:
            raise FilesError(f"{shown!r}: {error.reason}") from None
        text = TextFile.decode(existing) if existing else TextFile("", "utf-8", b"", False)
        try:
            data = text.encode(text.text + content.replace("\r\n", "\n"))
        except EditError as error:
            raise FilesError(f"{shown!r}: {error}") from None
        _store(root, relative, shown, data)


def _edit(
    root: Root,
    relative: str,
    shown: str,
    pairs: list[tuple[str, str]],
    dry_run: bool,
    expected: str | None,
    cap: int,
) -> Result:
    with _LOCKS.of(root, relative):  # read, check and write back as one step
        try:
            data = root.read_bytes(relative, max_bytes=cap)
        except PathError as error:
            raise FilesError(f"{shown!r}: {error.reason}") from None
        if expected is not None and sha256(data) != expected.strip().lower():
            raise FilesError(
                f"{shown!r} changed since it was read: its sha256 is {sha256(data)}, "
                f"not {expected}; read it again before editing"
            )
        text = TextFile.decode(data)
        try:
            after = apply_edits(text.text, pairs)
            encoded = text.encode(after)
        except EditError as error:
            raise FilesError(f"{shown!r}: {error}") from None
        diff = unified_diff(text.text, after, root.absolute(relative))
        if not dry_run:
            _store(root, relative, shown, encoded)
        return dict(
            content=diff, path=root.absolute(relative), applied=not dry_run, sha256=sha256(encoded)
        )


def _move(root: Root, relative: str, target_root: Root, target: str) -> None:
    # An append or an edit of the source finishes first: else its write, landing after the
    # move, made the old name again with the whole content.
    with _LOCKS.of(root, relative):
        try:
            root.rename(relative, target, into=target_root)
        except PathError as error:
            raise FilesError(str(error)) from None


def _entry_of(entry: Entry, with_size: bool) -> Result:
    return dict(
        name=entry.name,
        type=_kind(entry.kind),
        size=entry.size if with_size and entry.kind != "directory" else None,
        modified=_iso(entry.mtime) if with_size else None,
    )


def _list(
    root: Root, relative: str, access: Access, cap: int, with_sizes: bool, sort_by: str
) -> Result:
    try:
        read = root.list_directory(relative, limit=_DIRECTORY_ENTRIES)
        entries = [e for e in read if not access.hidden(e.name)]
    except PathError as error:
        raise FilesError(str(error)) from None
    truncated = len(entries) > cap or len(read) >= _DIRECTORY_ENTRIES
    entries = entries[:cap]
    if with_sizes:
        for index, entry in enumerate(entries):
            if entry.kind == "symlink":  # the reference reports what a link points to
                linked = f"{relative}/{entry.name}" if relative else entry.name
                try:
                    access.check(root, linked, linked)  # a link to a denied file tells nothing
                    status = root.stat(linked)
                except (PathError, FilesError):
                    continue
                entries[index] = Entry(
                    entry.name,
                    "directory" if stat.S_ISDIR(status.st_mode) else "file",
                    status.st_size,
                    status.st_mtime,
                    status.st_mode,
                )
    if sort_by == "size":
        entries.sort(key=lambda e: -e.size if e.kind != "directory" else 0)
    listed = [_entry_of(entry, with_sizes) for entry in entries]
    if with_sizes:
        lines = [
            f"{'[DIR]' if e.kind == 'directory' else '[FILE]'} {_line_safe(e.name).ljust(30)} "
            f"{'' if e.kind == 'directory' else _size_text(e.size).rjust(10)}"
            for e in entries
        ]
        files = [e for e in entries if e.kind != "directory"]
        lines += [
            "",
            f"Total: {len(files)} files, {len(entries) - len(files)} directories",
            f"Combined size: {_size_text(sum(e.size for e in files))}",
        ]
    else:
        lines = [
            f"{'[DIR]' if e.kind == 'directory' else '[FILE]'} {_line_safe(e.name)}"
            for e in entries
        ]
    if truncated:
        lines.append(f"(listing cut at {cap} entries)")
    return dict(
        content="\n".join(lines), path=root.absolute(relative), entries=listed, truncated=truncated
    )


def _tree(
    root: Root,
    relative: str,
    access: Access,
    exclude: list[str],
    max_depth: int,
    max_entries: int,
    seconds: float,
) -> Result:
    deadline = time.monotonic() + seconds
    start = _resolved_dir(root, relative)
    prefix = len(start) + 1 if start else 0
    nodes: dict[str, list[dict[str, Any]]] = {}
    count = 0
    cut: str | None = None
    deepest = False

    def keep(path: str) -> bool:
        return not excluded(path[prefix:], exclude) and not access.hidden(path.rsplit("/", 1)[-1])

    walk = root.walk(start, max_depth=max_depth, enter=keep, limit=_DIRECTORY_ENTRIES)
    try:
        for directory, entries in walk:
            children = nodes.setdefault(directory, [])
            depth = 0 if directory == start else directory[prefix:].count("/") + 1
            for entry in entries:
                path = f"{directory}/{entry.name}" if directory else entry.name
                if not keep(path):
                    continue
                if count >= max_entries:
                    cut = f"the tree was cut at {max_entries} entries"
                    break
                count += 1
                node: dict[str, Any] = {
                    "name": entry.name,
                    "type": "directory" if entry.kind == "directory" else "file",
                }
                if entry.kind == "directory":
                    if depth < max_depth:
                        node["children"] = nodes.setdefault(path, [])
                    else:
                        node["children"] = []
                        deepest = True
                children.append(node)
            if cut is not None:
                break
            if time.monotonic() > deadline:
                cut = f"the tree was cut after {seconds:g} seconds"
                break
    finally:
        walk.close()
    if cut is None and deepest:
        cut = f"directories deeper than {max_depth} levels are shown without their children"
    text = json.dumps(nodes.get(start, []), indent=2, ensure_ascii=False)
    return dict(
        content=text,
        path=root.absolute(relative),
        entries=count,
        truncated=cut is not None,
        note=cut,
    )


def _resolved_dir(root: Root, relative: str) -> str:
    try:
        os.close(root.open_directory(relative))
        return root.resolve(relative)
    except PathError as error:
        raise FilesError(str(error)) from None


def _search_names(
    root: Root, relative: str, access: Access, pattern: str, exclude: list[str]
) -> Result:
    limits = access.limits
    deadline = time.monotonic() + limits.search_seconds
    start = _resolved_dir(root, relative)
    prefix = len(start) + 1 if start else 0
    glob = Glob(pattern)
    matches: list[str] = []
    cut: str | None = None

    def keep(path: str) -> bool:
        return not excluded(path[prefix:], exclude) and not access.hidden(path.rsplit("/", 1)[-1])

    walk = root.walk(start, max_depth=limits.max_depth, enter=keep, limit=_DIRECTORY_ENTRIES)
    base = root.path.rstrip("/")
    try:
        for directory, entries in walk:
            for entry in entries:
                path = f"{directory}/{entry.name}" if directory else entry.name
                if not keep(path):
                    continue
                if glob.matches(path[prefix:]):
                    if len(matches) >= limits.max_results:
                        cut = f"the search stopped at {limits.max_results} results"
                        break
                    matches.append(f"{base}/{path}")
            if cut is not None:
                break
            if time.monotonic() > deadline:
                cut = f"the search stopped after {limits.search_seconds:g} seconds"
                break
    finally:
        walk.close()
    text = "\n".join(map(_line_safe, matches)) if matches else "No matches found"
    if cut:
        text += f"\n({cut})"
    return dict(content=text, matches=matches, truncated=cut is not None, note=cut)


def _search_contents(
    root: Root,
    relative: str,
    access: Access,
    regex: re.Pattern[str],
    file_pattern: str | None,
    exclude: list[str],
    cap: int,
) -> Result:
    limits = access.limits
    deadline = time.monotonic() + limits.search_seconds
    base = root.path.rstrip("/")
    matches: list[Result] = []
    searched = skipped = 0
    cut: str | None = None
    try:
        status = root.stat(relative)
    except PathError as error:
        raise FilesError(str(error)) from None
    if stat.S_ISDIR(status.st_mode):
        start = _resolved_dir(root, relative)
        prefix = len(start) + 1 if start else 0

        def keep(path: str) -> bool:
            return not excluded(path[prefix:], exclude) and not access.hidden(
                path.rsplit("/", 1)[-1]
            )

        only = Glob(file_pattern) if file_pattern else None

        def files() -> Iterator[tuple[int | None, str, str]]:
            walk = root.walk(
                start, max_depth=limits.max_depth, enter=keep, limit=_DIRECTORY_ENTRIES
            )
            try:
                for directory, entries in walk:
                    chosen = []
                    for entry in entries:
                        path = f"{directory}/{entry.name}" if directory else entry.name
                        if entry.kind != "file" or not keep(path):
                            continue
                        if only is None or only.matches(path[prefix:]):
                            chosen.append((entry.name, path))
                    if not chosen:
                        continue
                    try:  # one descriptor per directory, not one resolution per file
                        directory_fd = root.open_directory(directory)
                    except PathError:
                        continue
                    try:
                        for name, path in chosen:
                            yield directory_fd, name, path
                    finally:
                        os.close(directory_fd)
            finally:
                walk.close()

        candidates = files()
    else:
        resolved = root.resolve(relative)
        candidates = iter([(None, resolved, resolved)])
    matcher = matcher_for(regex, deadline, limits.max_line_chars, 500)
    pending: list[tuple[str, str]] = []
    pending_chars = 0

    def flush() -> str | None:
        """Match the pending texts; the reason to stop, if any."""
        nonlocal pending_chars
        try:
            found = matcher.match([text for _, text in pending])
        except TimeUp:
            return f"the search stopped after {limits.search_seconds:g} seconds"
        finally:
            texts, pending[:] = list(pending), []
            pending_chars = 0
        for (path, _), hits in zip(texts, found, strict=True):
            for number, line in hits:
                if len(matches) >= cap:
                    return f"the search stopped at {cap} matches"
                matches.append(dict(path=f"{base}/{path}", line=number, text=line))
        return None

    try:
        for directory_fd, name, path in candidates:
            if time.monotonic() > deadline:
                cut = f"the search stopped after {limits.search_seconds:g} seconds"
                break
            try:
                with root.open_file(name, directory=directory_fd) as file:
                    if os.fstat(file.fileno()).st_size > limits.max_read_bytes:
                        skipped += 1
                        continue
                    data = file.read(limits.max_read_bytes)
            except PathError:
                skipped += 1
                continue
            if _is_binary(data):
                skipped += 1
                continue
            searched += 1
            text = _decode(data)
            pending.append((path, text))
            pending_chars += len(text)
            if pending_chars >= _MATCH_BATCH:
                cut = flush()
                if cut is not None:
                    break
        if cut is None and pending:
            cut = flush()
    finally:
        matcher.close()
    if hasattr(candidates, "close"):
        candidates.close()
    text = "\n".join(
        f"{_line_safe(m['path'])}:{m['line']}: {_BREAKS.sub(_escape, m['text'])}" for m in matches
    )
    text = text or "No matches found"
    if cut:
        text += f"\n({cut})"
    return dict(
        content=text,
        matches=matches,
        filesSearched=searched,
        filesSkipped=skipped,
        truncated=cut is not None,
        note=cut,
    )


def _info(root: Root, relative: str, shown: str) -> Result:
    try:
        status = root.stat(relative)
    except PathError as error:
        raise FilesError(str(error)) from None
    birth = getattr(status, "st_birthtime", None)
    kind = _kind(
        "directory"
        if stat.S_ISDIR(status.st_mode)
        else "file"
        if stat.S_ISREG(status.st_mode)
        else "other"
    )
    fields = {
        "size": status.st_size,
        "created": _iso(birth),
        "modified": _iso(status.st_mtime),
        "accessed": _iso(status.st_atime),
        "isDirectory": kind == "directory",
        "isFile": kind == "file",
        "permissions": oct(stat.S_IMODE(status.st_mode))[-3:],
    }
    text = "\n".join(f"{key}: {value}" for key, value in fields.items())
    return dict(content=text, path=root.absolute(relative), type=kind, **fields)
