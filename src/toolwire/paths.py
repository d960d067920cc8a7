"""Paths confined to root directories: the one way toolwire lets a caller name a file.

A `Root` holds its directory open and resolves a path one component at a time through
directory descriptors; a link is followed only when it stays inside, `..` never climbs above
the root. Reads open regular files only; writes replace the target atomically, keeping its mode.
Every refusal is a `PathError` (a `ValueError`) naming the path and the reason. `Roots` picks
the root an absolute path lies in. POSIX only.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import stat
import sys
import weakref
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, Literal

__all__ = [
    "Entry",
    "PathError",
    "PathKindError",
    "PathNotFoundError",
    "PathOutsideError",
    "Root",
    "Roots",
]

_MAX_LINKS = 40  # symbolic links followed while resolving one path (as Linux's own limit)
_MAX_PATH = 4096  # bytes in a path as given (Linux's PATH_MAX)

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC | _NONBLOCK
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC

Kind = Literal["file", "directory", "symlink", "fifo", "socket", "device", "other"]

# Each file type's `Entry.kind` and the words a refusal uses for it.
_KINDS: dict[int, tuple[Kind, str]] = {
    stat.S_IFREG: ("file", "a file"),
    stat.S_IFDIR: ("directory", "a directory"),
    stat.S_IFLNK: ("symlink", "a symbolic link"),
    stat.S_IFIFO: ("fifo", "a FIFO (named pipe)"),
    stat.S_IFSOCK: ("socket", "a socket"),
    stat.S_IFCHR: ("device", "a device"),
    stat.S_IFBLK: ("device", "a device"),
}


def _kind(mode: int) -> tuple[Kind, str]:
    return _KINDS.get(stat.S_IFMT(mode), ("other", "not a regular file"))


class PathError(ValueError):
    """A path was refused or could not be used; the message names it and says why.

    Args:
        path: The path as the caller gave it (kept as `path`).
        reason: Why, as a clause ("it leads outside ..."; kept as `reason`).
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path!r}: {reason}")


class PathOutsideError(PathError):
    """The path (or a link on its way) leads outside every allowed root."""


class PathNotFoundError(PathError):
    """The path is allowed but names nothing (or a directory on its way is missing)."""


class PathKindError(PathError):
    """The path (or a name on its way) is not the kind of file wanted, e.g. a FIFO or device."""


@dataclass(frozen=True)
class Entry:
    """One name in a directory listing, described without following it.

    Attributes:
        name: The name inside its directory.
        kind: What it is; a symbolic link is `"symlink"` whatever it points to.
        size: Its size in bytes (a link's own size for a link).
        mtime: Its modification time, in seconds since the epoch.
        mode: Its full `st_mode`.
    """

    name: str
    kind: Kind
    size: int
    mtime: float
    mode: int


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def _check_text(path: object) -> None:
    if not isinstance(path, str):
        raise PathError(repr(path), "a path must be a string")
    if "\x00" in path:
        raise PathError(path, "it holds a NUL byte")
    try:
        size = len(os.fsencode(path))
    except UnicodeEncodeError as error:  # a lone surrogate outside the file system's own
        bad = error.object[error.start : error.end]
        raise PathError(path, f"it holds {bad!r}, which no file name can hold") from None
    if size > _MAX_PATH:  # each component costs a system call or two while resolving
        raise PathError(path[:200] + "...", f"it is {size} bytes long; a path may have {_MAX_PATH}")


def _require_regular(path: str, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise PathKindError(path, f"it is {_kind(mode)[1]}, not a regular file")


def _split(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def _lstat(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


_RENAME_NOREPLACE = 1  # renameat2's flag (Linux): fail with EEXIST instead of replacing


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """Linux's renameat2 from the C library, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    found = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if found is None:  # a C library older than glibc 2.28
        return None
    found.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    found.restype = ctypes.c_int
    return found  # type: ignore[no-any-return]


def _rename(source: str, source_fd: int, target: str, target_fd: int, overwrite: bool) -> None:
    """Rename `source` to `target`; unless `overwrite`, refuse when `target` exists, in one step
    where the system and the file system can (no file can appear in between).

    Raises:
        OSError: The rename failed (FileExistsError when `target` exists).
    """
    renameat2 = None if overwrite else _renameat2()
    if renameat2 is not None:
        import ctypes

        if not renameat2(
            source_fd, os.fsencode(source), target_fd, os.fsencode(target), _RENAME_NOREPLACE
        ):
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):  # else this file system cannot
            raise OSError(code, os.strerror(code))
    if not overwrite and _lstat(target, target_fd) is not None:
        raise FileExistsError  # checked, then renamed: the system cannot do it in one step
    os.rename(source, target, src_dir_fd=source_fd, dst_dir_fd=target_fd)


class _Walk(contextlib.AbstractContextManager["_Walk"]):
    """`path` resolved to the directory holding its last component (`name`, "" when the path
    is that directory): the descriptors and names of the real directories from the root down
    to it, closed on leaving a `with` block."""

    def __init__(
        self,
        root: Root,
        path: str,
        *,
        follow_last: bool,
        create: bool = False,
        change: bool = False,
    ) -> None:
        self.root = root
        self.shown = path
        self.change = change  # the walk leads to a change: protected directories are refused
        self.fds: list[int] = []
        self.names: list[str] = []
        self.links = 0
        try:
            self.name = self._last(follow_last, create)
        except BaseException as error:
            self.close()
            if isinstance(error, OSError):
                raise PathError(path, f"it cannot be resolved ({error.strerror})") from None
            raise

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def fd(self) -> int:
        return self.fds[-1] if self.fds else self.root.fileno()

    def relative(self, name: str = "") -> str:
        return "/".join([*self.names, name] if name else self.names)

    def down(self, name: str, fd: int) -> None:
        self.fds.append(fd)
        self.names.append(name)
        if self.change:
            self.root._refuse_protected(self.shown, fd)

    def close(self) -> None:
        """Close every descriptor: the walk is back at the root."""
        while self.fds:
            os.close(self.fds.pop())
        self.names.clear()

    def _last(self, follow_last: bool, create: bool) -> str:
        """Walk down to the last component and return it."""
        path = self.shown
        _check_text(path)
        pending = self.root.inside_parts(path) if path.startswith("/") else _split(path)
        if pending is None:
            raise PathOutsideError(path, f"it is not inside the root {self.root.path!r}")
        pending.reverse()
        while pending:
            name = pending.pop()  # never "" nor "." (see _split)
            if name == "..":
                if not self.fds:
                    raise PathOutsideError(path, f"it leads above the root {self.root.path!r}")
                os.close(self.fds.pop())
                self.names.pop()
                continue
            if not pending:
                try:
                    mode = os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode
                except FileNotFoundError:
                    return name
                except OSError as error:
                    raise PathError(path, f"it cannot be looked at ({error.strerror})") from None
                if not follow_last or not (stat.S_ISLNK(mode) or stat.S_ISDIR(mode)):
                    return name
                if stat.S_ISLNK(mode):
                    pending.extend(reversed(self._link_target(name)))
                    continue
            self._enter(name, pending, create)
        return ""

    def _enter(self, name: str, pending: list[str], create: bool) -> None:
        """Step into the directory `name` (made first when missing and `create`), or queue
        the target of the link `name` in its place."""
        try:
            self.down(name, os.open(name, _DIR_FLAGS, dir_fd=self.fd))
        except FileNotFoundError:
            if not create:
                raise PathNotFoundError(
                    self.shown, f"the directory {name!r} on its way does not exist"
                ) from None
            if self.root.read_only:
                raise PathError(self.shown, "the root is read-only") from None
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=self.fd)
            self.down(name, os.open(name, _DIR_FLAGS, dir_fd=self.fd))
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise
            if not stat.S_ISLNK(os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode):
                raise PathKindError(self.shown, f"{name!r} on its way is not a directory") from None
            pending.extend(reversed(self._link_target(name)))

    def _link_target(self, name: str) -> list[str]:
        """The parts to resolve in place of the link `name` in the current directory."""
        self.links += 1
        if self.links > _MAX_LINKS:
            raise PathError(self.shown, "it goes through too many symbolic links (a loop?)")
        target = os.readlink(name, dir_fd=self.fd)
        if not target.startswith("/"):
            return _split(target)
        inside = self.root.inside_parts(target)
        if inside is None:
            raise PathOutsideError(
                self.shown, f"a symbolic link on its way points outside the root ({target!r})"
            )
        self.close()
        return inside


class Root:
    """One directory that paths are confined to, held open by descriptor.

    A path is relative to the root, or absolute and starting with the root's path as given or
    as resolved (by component: `/root_evil` is not in `/root`). Nothing is expanded or
    normalised: `~`, trailing spaces and Unicode forms are names like any other.

    Args:
        directory: The directory; it must exist.
        read_only: Refuse every change under the root (kept as `read_only`).
        allow_hard_links: Read files with several hard links, whose other names may lie
            outside the root (kept as `allow_hard_links`).

    Raises:
        PathError: `directory` is not a directory that can be opened.
        TypeError: `directory` is not a path, or a flag is not True or False.

    Attributes:
        path: The root's real absolute path (links resolved once, at construction).
        given: The absolute path as given (not resolved), also accepted as a prefix.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        read_only: bool = False,
        allow_hard_links: bool = True,
    ) -> None:
        if not isinstance(directory, str | os.PathLike):
            raise TypeError(f"Root directory must be a path, not {type(directory).__name__}")
        for option, value in (("read_only", read_only), ("allow_hard_links", allow_hard_links)):
            if not isinstance(value, bool):
                raise TypeError(f"Root {option} must be True or False, not {value!r}")
        shown = os.fspath(directory)
        _check_text(shown)
        try:
            self._fd = os.open(shown, os.O_RDONLY | _DIRECTORY | _CLOEXEC | _NONBLOCK)
        except OSError as error:
            raise PathError(shown, f"the root cannot be opened ({error.strerror})") from None
        # Closed by close() or when the root is collected, whichever comes first.
        self._release = weakref.finalize(self, _close_quietly, self._fd)
        self.given = os.path.abspath(shown)
        self.path = os.path.realpath(shown)
        self.read_only = read_only
        self.allow_hard_links = allow_hard_links
        if not os.path.samestat(os.fstat(self._fd), os.stat(self.path)):
            self.close()
            raise PathError(shown, "the root changed while it was opened")
        # Read-only directories inside this root (see `protect`): the directories themselves,
        # and every directory from each of them up to this root, by (device, inode).
        self._protected: dict[tuple[int, int], str] = {}
        self._holders: dict[tuple[int, int], str] = {}
        self._prefixes = [_split(self.path)]
        if self.given != self.path:
            self._prefixes.append(_split(self.given))

    def __repr__(self) -> str:
        return f"Root({self.path!r}{', read_only=True' if self.read_only else ''})"

    def __enter__(self) -> Root:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def fileno(self) -> int:
        """The root directory's descriptor (owned by the root: do not close it)."""
        if self._fd < 0:
            raise ValueError(f"root {self.path!r} is closed")
        return self._fd

    def close(self) -> None:
        """Close the root's descriptor; the root cannot be used afterwards."""
        if self._fd >= 0:
            self._fd = -1
            self._release()

    def inside_parts(self, path: str) -> list[str] | None:
        """The components of the absolute `path` below the root, or None when it is not under
        the root's path (lexically: links are not looked at here)."""
        parts = _split(path)
        rests = [parts[len(p) :] for p in self._prefixes if parts[: len(p)] == p]
        return min(rests, key=len, default=None)

    @property
    def prefixes(self) -> list[list[str]]:
        """The root's path components, as resolved and as given (when they differ)."""
        return list(self._prefixes)

    def _absolute(self, relative: str) -> str:
        return f"{self.path.rstrip('/')}/{relative}" if relative else self.path

    def _writable(self, path: str) -> None:
        if self.read_only:
            raise PathError(path, f"the root {self.path!r} is read-only")
        self._refuse_protected(path, self.fileno())

    def protect(self, other: Root) -> bool:
        """Refuse every change inside the directory of `other` (a read-only root that lies
        inside this one), however a path reaches it: by name, through a link or `..`; moving
        or removing it, or a directory that holds it, is refused too. Subroots made afterwards
        inherit this.

        Returns:
            Whether `other` lies inside this root (or is it); if not, nothing changes.
        """
        mine = os.fstat(self.fileno())
        chain: list[tuple[int, int]] = []
        fd = os.dup(other.fileno())
        try:
            status = os.fstat(fd)
            while not os.path.samestat(status, mine):
                chain.append((status.st_dev, status.st_ino))
                parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = parent
                above = os.fstat(fd)
                if os.path.samestat(above, status):  # the file system's top: not inside
                    return False
                status = above
        finally:
            os.close(fd)
        self._protected[chain[0] if chain else (mine.st_dev, mine.st_ino)] = other.path
        self._holders.update(dict.fromkeys(chain, other.path))
        return True

    def _refuse_protected(self, shown: str, fd: int) -> None:
        """Refuse a change inside the open directory `fd` when it is a protected one."""
        if self._protected:
            status = os.fstat(fd)
            held = self._protected.get((status.st_dev, status.st_ino))
            if held is not None:
                raise PathError(shown, f"it is inside the read-only directory {held!r}")

    def _refuse_holding(self, shown: str, dir_fd: int, name: str) -> None:
        """Refuse moving or removing `name` when it is or holds a protected directory."""
        status = _lstat(name, dir_fd) if self._holders else None
        if status is not None and stat.S_ISDIR(status.st_mode):
            held = self._holders.get((status.st_dev, status.st_ino))
            if held is not None:
                raise PathError(shown, f"it is or holds the read-only directory {held!r}")

    def _open_directory(self, path: str, create: bool = False) -> tuple[int, str]:
        """A descriptor of the directory `path` (the caller closes it) and its real path
        relative to the root."""
        with _Walk(self, path, follow_last=True, create=create, change=create) as walk:
            if walk.name:
                status = _lstat(walk.name, walk.fd)
                if status is not None:
                    raise PathKindError(path, f"it is {_kind(status.st_mode)[1]}, not a directory")
                if not create:
                    raise PathNotFoundError(path, "it does not exist")
                self._writable(path)
                try:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(walk.name, 0o777, dir_fd=walk.fd)
                    walk.down(walk.name, os.open(walk.name, _DIR_FLAGS, dir_fd=walk.fd))
                except OSError as error:
                    raise PathError(path, f"it cannot be opened ({error.strerror})") from None
            return walk.fds.pop() if walk.fds else os.dup(self.fileno()), walk.relative()

    def resolve(self, path: str, *, follow: bool = True) -> str:
        """The real path of `path` relative to the root ("" for the root), links followed
        (the last one only when `follow`); the last component need not exist.

        Raises:
            PathError: The path leads outside the root, or cannot be resolved.
        """
        with _Walk(self, path, follow_last=follow) as walk:
            return walk.relative(walk.name)

    def absolute(self, path: str, *, follow: bool = True) -> str:
        """The real absolute path of `path` (see `resolve`)."""
        return self._absolute(self.resolve(path, follow=follow))

    def stat(self, path: str, *, follow: bool = True) -> os.stat_result:
        """`os.stat` of `path` inside the root.

        Raises:
            PathNotFoundError: Nothing is there.
            PathError: The path is refused.
        """
        with _Walk(self, path, follow_last=follow) as walk:
            status = _lstat(walk.name, walk.fd) if walk.name else os.fstat(walk.fd)
        if status is None:
            raise PathNotFoundError(path, "it does not exist")
        return status

    def exists(self, path: str) -> bool:
        """Whether `path` names something inside the root (a refused path does not)."""
        try:
            self.stat(path)
        except PathError:
            return False
        return True

    def open_directory(self, path: str = "", *, create: bool = False) -> int:
        """A descriptor of the directory `path` (the caller closes it), e.g. to run a process
        there (`os.fchdir`) or to list it; `create` makes missing directories on the way.

        Raises:
            PathNotFoundError: It (or a directory on its way) does not exist.
            PathError: It is not a directory, or is refused.
        """
        return self._open_directory(path, create)[0]

    def directory(self, path: str = "") -> str:
        """The real absolute path of the directory `path`, e.g. a subprocess's working directory
        (prefer `open_directory`: a path can be swapped once returned)."""
        fd, relative = self._open_directory(path)
        os.close(fd)
        return self._absolute(relative)

    def open_file(self, path: str, *, directory: int | None = None) -> BinaryIO:
        """Open the regular file `path` for reading in binary mode.

        Args:
            path: The file.
            directory: A descriptor from `open_directory`; `path` is then one name in it,
                opened without following a link.

        Raises:
            PathNotFoundError: Nothing is there.
            PathError: It is a directory, FIFO, device, socket or (with `directory`) a link, a
                multiply-linked file when hard links are not allowed, or refused.
        """
        if directory is not None:
            _check_text(path)
            if "/" in path or path in ("", ".", ".."):
                raise PathError(path, "with a directory descriptor the path must be one name")
            return self._open_regular(directory, path, path)
        with _Walk(self, path, follow_last=True) as walk:
            if not walk.name:
                raise PathKindError(path, "it is a directory")
            return self._open_regular(walk.fd, walk.name, path)

    def _open_regular(self, dir_fd: int, name: str, shown: str) -> BinaryIO:
        before = _lstat(name, dir_fd)
        if before is None:
            raise PathNotFoundError(shown, "it does not exist")
        self._check_readable(shown, before)
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
        except OSError as error:
            raise PathError(shown, f"it cannot be opened ({error.strerror})") from None
        try:
            status = os.fstat(fd)
            if not os.path.samestat(status, before):
                raise PathError(shown, "it changed while it was opened")
            self._check_readable(shown, status)
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, "rb")

    def _check_readable(self, path: str, status: os.stat_result) -> None:
        _require_regular(path, status.st_mode)
        if status.st_nlink > 1 and not self.allow_hard_links:
            raise PathError(path, "it has several hard links, which are not read here")

    def read_bytes(self, path: str, *, max_bytes: int | None = None) -> bytes:
        """The whole content of the regular file `path`.

        Args:
            path: The file.
            max_bytes: Refuse a file larger than this.

        Raises:
            PathError: As `open_file`, or the file is larger than `max_bytes`.
        """
        with self.open_file(path) as file:
            if max_bytes is None:
                return file.read()
            data = file.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise PathError(path, f"it is larger than {max_bytes} bytes")
        return data

    def list_directory(self, path: str = "", *, limit: int | None = None) -> list[Entry]:
        """The entries of the directory `path`, sorted by name, links not followed.

        Args:
            path: The directory.
            limit: Read at most this many entries (the first the directory yields).

        Raises:
            PathError: As `open_directory`.
        """
        fd = self.open_directory(path)
        try:
            return _entries(fd, limit)
        finally:
            os.close(fd)

    def walk(
        self,
        path: str = "",
        *,
        max_depth: int | None = None,
        enter: Callable[[str], bool] | None = None,
        limit: int | None = None,
    ) -> Generator[tuple[str, list[Entry]], None, None]:
        """Each directory under `path` (itself first, then depth first by name) as (its path
        relative to the root, its entries). Links are never entered; a subdirectory is entered
        within `max_depth` (0: `path` alone) when `enter(its relative path)`; `limit` is per
        directory.

        Raises:
            PathError: `path` itself is refused (unreadable subdirectories are skipped).
        """
        # From `path` down: descriptor, relative path, subdirectories to enter (last first).
        frames: list[tuple[int, str, list[str]]] = []

        def visit(fd: int, relative: str) -> tuple[str, list[Entry]]:
            names: list[str] = []
            frames.append((fd, relative, names))
            try:
                entries = _entries(fd, limit)
            except OSError:
                return relative, []
            if max_depth is None or len(frames) <= max_depth:
                for entry in reversed(entries):
                    joined = f"{relative}/{entry.name}" if relative else entry.name
                    if entry.kind == "directory" and (enter is None or enter(joined)):
                        names.append(entry.name)
            return relative, entries

        try:
            yield visit(*self._open_directory(path))
            while frames:
                fd, relative, names = frames[-1]
                if not names:
                    os.close(fd)
                    frames.pop()
                    continue
                name = names.pop()
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue
                yield visit(child, f"{relative}/{name}" if relative else name)
        finally:
            for fd, _, _ in frames:
                os.close(fd)

    def write_bytes(
        self,
        path: str,
        data: bytes,
        *,
        create_parents: bool = False,
        exclusive: bool = False,
        mode: int | None = None,
    ) -> None:
        """Replace (or create) the file `path` with `data` atomically; an existing file keeps
        its mode, a link inside the root is written through.

        Args:
            path: The file.
            data: Its new content.
            create_parents: Make missing directories on the way.
            exclusive: Refuse when something already exists there.
            mode: The mode of a new file (default 0o666 less the umask).

        Raises:
            PathError: The path is refused, is a directory or other non-regular file, exists
                and `exclusive` is set or is not writable by this process, or the root is
                read-only.
        """
        self._writable(path)
        with _Walk(self, path, follow_last=True, create=create_parents, change=True) as walk:
            if not walk.name:
                raise PathKindError(path, "it is a directory")
            existing = _lstat(walk.name, walk.fd)
            if existing is not None:
                if exclusive:
                    raise PathError(path, "it already exists")
                _require_regular(path, existing.st_mode)
                # Renaming over a file needs only its directory's permission: without this,
                # a file its owner made read-only would be replaced all the same.
                if not os.access(walk.name, os.W_OK, dir_fd=walk.fd, follow_symlinks=False):
                    shown_mode = stat.filemode(existing.st_mode)
                    raise PathError(path, f"it is read-only ({shown_mode}), so it is not replaced")
                mode = stat.S_IMODE(existing.st_mode)
            _replace(walk.fd, walk.name, data, mode, exclusive=exclusive, shown=path)

    def mkdir(self, path: str, *, parents: bool = True, exist_ok: bool = True) -> None:
        """Create the directory `path` (and, with `parents`, those on its way).

        Raises:
            PathError: The path is refused, something else is there, or it exists and not
                `exist_ok`, or the root is read-only.
        """
        self._writable(path)
        with _Walk(self, path, follow_last=True, create=parents, change=True) as walk:
            if not walk.name:
                if exist_ok:
                    return
                raise PathError(path, "it already exists")
            try:
                os.mkdir(walk.name, 0o777, dir_fd=walk.fd)
            except FileExistsError:
                status = _lstat(walk.name, walk.fd)
                if not exist_ok or status is None or not stat.S_ISDIR(status.st_mode):
                    raise PathError(path, "it already exists") from None
            except OSError as error:
                raise PathError(path, f"it cannot be created ({error.strerror})") from None

    def delete(self, path: str, *, directory: bool = False) -> None:
        """Remove the file (or, with `directory`, the empty directory) `path`; a link is
        removed itself, never its target.

        Raises:
            PathNotFoundError: Nothing is there.
            PathError: The path is refused, of the other kind, or the root is read-only.
        """
        self._writable(path)
        with _Walk(self, path, follow_last=False, change=True) as walk:
            if not walk.name:
                raise PathError(path, "it names the root or ends in '..'")
            self._refuse_holding(path, walk.fd, walk.name)
            try:
                if directory:
                    os.rmdir(walk.name, dir_fd=walk.fd)
                else:
                    status = _lstat(walk.name, walk.fd)
                    if status is not None and stat.S_ISDIR(status.st_mode):
                        raise PathKindError(path, "it is a directory")
                    os.unlink(walk.name, dir_fd=walk.fd)
            except FileNotFoundError:
                raise PathNotFoundError(path, "it does not exist") from None
            except OSError as error:
                raise PathError(path, f"it cannot be deleted ({error.strerror})") from None

    def rename(
        self,
        source: str,
        destination: str,
        *,
        overwrite: bool = False,
        into: Root | None = None,
    ) -> None:
        """Move `source` to `destination`; a link is moved itself, never its target.

        Args:
            source: What to move.
            destination: Where to; its directory must exist.
            overwrite: Replace an existing file at `destination`.
            into: The root `destination` is in (default this one), on the same file system.

        Raises:
            PathNotFoundError: `source` does not exist.
            PathError: Either path is refused, `destination` exists and not `overwrite`, or
                a root is read-only.
        """
        target_root = into or self
        self._writable(source)
        target_root._writable(destination)
        with _Walk(self, source, follow_last=False, change=True) as walk:
            if not walk.name:
                raise PathError(source, "the root or a '..' path cannot be moved")
            if _lstat(walk.name, walk.fd) is None:
                raise PathNotFoundError(source, "it does not exist")
            self._refuse_holding(source, walk.fd, walk.name)
            with _Walk(target_root, destination, follow_last=False, change=True) as target:
                if not target.name:
                    raise PathError(destination, "it names an existing directory")
                target_root._refuse_holding(destination, target.fd, target.name)
                try:
                    _rename(walk.name, walk.fd, target.name, target.fd, overwrite)
                except FileExistsError:
                    raise PathError(destination, "it already exists") from None
                except FileNotFoundError:
                    raise PathNotFoundError(source, "it does not exist") from None
                except OSError as error:
                    raise PathError(
                        destination, f"it cannot be moved there ({error.strerror})"
                    ) from None

    def subroot(self, path: str, *, read_only: bool | None = None) -> Root:
        """A new root for the directory `path` inside this one, with its settings by default.

        Raises:
            PathError: As `open_directory`.
        """
        fd, relative = self._open_directory(path)
        try:
            sub = Root(
                self._absolute(relative),
                read_only=self.read_only if read_only is None else read_only,
                allow_hard_links=self.allow_hard_links,
            )
            if not os.path.samestat(os.fstat(sub.fileno()), os.fstat(fd)):
                sub.close()
                raise PathError(path, "the directory changed while it was opened")
            sub._protected.update(self._protected)
            sub._holders.update(self._holders)
            return sub
        finally:
            os.close(fd)


class Roots:
    """Several roots; an absolute path belongs to the deepest one whose path it starts with,
    a relative path to the first.

    Args:
        roots: The roots (directories are opened as `Root`s with default settings).

    Raises:
        PathError: A directory cannot be opened.
        TypeError: `roots` is one path or no list.
    """

    def __init__(self, roots: Iterable[Root | str | os.PathLike[str]]) -> None:
        if isinstance(roots, str | bytes | os.PathLike) or not isinstance(roots, Iterable):
            # one path would be read as its characters, the first one `/` the whole disk
            raise TypeError(f"Roots takes a list of directories, not {type(roots).__name__}")
        self.roots: list[Root] = [r if isinstance(r, Root) else Root(r) for r in roots]

    def __iter__(self) -> Iterator[Root]:
        return iter(self.roots)

    def __len__(self) -> int:
        return len(self.roots)

    @property
    def paths(self) -> list[str]:
        """The roots' real paths, in order."""
        return [root.path for root in self.roots]

    def locate(self, path: str) -> tuple[Root, str]:
        """The root `path` is in and the path relative to it (unresolved).

        Raises:
            PathOutsideError: No root holds it, or there is no root at all.
            PathError: It is not a string or holds a NUL byte.
        """
        _check_text(path)
        if not self.roots:
            raise PathOutsideError(path, "no directory is allowed at the moment")
        if not path.startswith("/"):
            return self.roots[0], path
        inside = [(rest, r) for r in self.roots if (rest := r.inside_parts(path)) is not None]
        if not inside:
            raise PathOutsideError(
                path, f"it is outside the allowed directories ({', '.join(self.paths)})"
            )
        rest, root = min(inside, key=lambda found: len(found[0]))  # the deepest, else the first
        return root, "/".join(rest)

    def close(self) -> None:
        """Close every root."""
        for root in self.roots:
            root.close()


def _entries(fd: int, limit: int | None) -> list[Entry]:
    """The entries of the open directory `fd` (the first `limit` it yields), sorted by name."""
    found: list[Entry] = []
    with os.scandir(fd) as listing:
        for item in itertools.islice(listing, limit):
            try:
                status = item.stat(follow_symlinks=False)
            except OSError:
                continue
            kind = _kind(status.st_mode)[0]
            found.append(Entry(item.name, kind, status.st_size, status.st_mtime, status.st_mode))
    found.sort(key=lambda entry: entry.name)
    return found


def _replace(
    dir_fd: int, name: str, data: bytes, mode: int | None, *, exclusive: bool, shown: str
) -> None:
    """Write `data` to a fresh temporary file beside `name` and rename it over `name` (link
    it there when `exclusive`, which fails if `name` exists)."""
    # The name's first 100 bytes, not characters: a long non-ASCII name must leave room.
    temporary = f".{os.fsdecode(os.fsencode(name)[:100])}.{os.urandom(6).hex()}.tmp"
    try:
        fd = os.open(temporary, _TEMP_FLAGS, 0o666 if mode is None else 0o600, dir_fd=dir_fd)
    except OSError as error:
        raise PathError(shown, f"it cannot be written ({error.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            if mode is not None:
                os.fchmod(file.fileno(), mode)
        if exclusive:
            os.link(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
            os.unlink(temporary, dir_fd=dir_fd)
        else:
            os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)
        if isinstance(error, FileExistsError):
            raise PathError(shown, "it already exists") from None
        if isinstance(error, OSError):
            raise PathError(shown, f"it cannot be written ({error.strerror})") from None
        raise
