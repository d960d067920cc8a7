"""What a command may be, where it runs and what environment it sees.

Without an allow-list a command is a shell script run by `/bin/sh -c`. With one (`--allow`),
there is no shell at all: the command line is split with `shlex` into an argv whose first word
must be one of the allowed names, exactly as written; shell syntax (pipes, `;`, `&`,
redirections, `$`, backquotes, subshells, unquoted globs, newlines) is refused with an error
naming what was found, because nothing would interpret it. Commands that run their arguments as
another command (`sh`, `env`, `xargs`, ...) cannot be allowed: they would open the list to
everything. The environment is a fresh one: a few basics and the names passed with `--env`,
plus settings that keep pagers, editors and prompts from waiting for a terminal.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolwire.paths import PathError, Roots

__all__ = ["LAUNCHERS", "CommandRefused", "Policy", "is_launcher", "program_bytes"]

# Programs whose arguments are themselves a command line: allowing one allows everything.
LAUNCHERS = frozenset(
    {
        "sh", "bash", "dash", "zsh", "ksh", "fish", "csh", "tcsh", "busybox", "env", "xargs",
        "nohup", "setsid", "sudo", "doas", "su", "exec", "eval", "command", "builtin", "time",
        "timeout", "nice", "ionice", "chroot", "strace", "ltrace", "watch", "parallel",
        "script", "stdbuf", "unshare", "nsenter", "flock", "runuser", "python", "python3",
        "perl", "ruby", "node", "find", "awk", "gawk", "ssh", "pypy", "php", "lua", "luajit",
        "tclsh", "expect", "deno", "bun", "pwsh", "Rscript", "mawk", "nawk",
    }
)  # fmt: skip


# Programs that run any command through an option, a config setting or a file they read
# (`git -c alias.x='!cmd' x`, a repository's hooks, `tar --to-command`, `sed`'s `e`, a Makefile):
# allowed, they are warned about at start rather than refused, since users do allow them.
RUN_COMMANDS_THROUGH_OPTIONS = frozenset(
    {
        "git", "tar", "sed", "make", "cmake", "rsync", "scp", "zip", "less", "more", "man",
        "vi", "vim", "nvim", "emacs", "ed", "npm", "npx", "yarn", "pnpm", "pip", "pip3",
        "cargo", "go", "docker", "podman", "kubectl", "gdb", "ansible", "terraform",
    }
)  # fmt: skip

logger = logging.getLogger("toolwire.shell")


def is_launcher(name: str) -> bool:
    """Whether `name` (a path's last part counts) is a launcher, versioned or not:
    `python3.11`, `perl5.36` and `pypy3` run code as `python`, `perl` and `pypy` do."""
    base = Path(name).name
    return base in LAUNCHERS or base.rstrip("0123456789.-") in LAUNCHERS


BASIC_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "USER", "LOGNAME", "TMPDIR", "TZ")

# Set for every command: no pager, no editor, no password prompt, no colours or cursor games.
QUIET_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "",
    "LESS": "-FRX",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",
    "EDITOR": "true",
    "VISUAL": "true",
    "GIT_ASKPASS": "true",
    "SSH_ASKPASS": "true",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
}

_OPERATORS = set("|;&<>()")
_ALWAYS_REFUSED = {"$": "'$' (expansion)", "`": "'`' (command substitution)"}
_GLOBS = set("*?[")


class CommandRefused(ValueError):
    """A command, a working directory or an option the server will not accept."""


@dataclass
class Policy:
    """The server's confinement.

    Args:
        roots: Directories a working directory must lie in (empty: anywhere), confined by
            `toolwire.paths` (links are followed only inside a root).
        allow: Allowed program names; empty means commands run through `/bin/sh -c`.
        env_names: Names of the server's environment variables passed on to commands.
        shell: The shell used without an allow-list.
    """

    roots: list[Path] = field(default_factory=list)
    allow: frozenset[str] = frozenset()
    env_names: tuple[str, ...] = ()
    shell: str = "/bin/sh"

    def __post_init__(self) -> None:
        launchers = sorted(name for name in self.allow if is_launcher(name) or not name.strip())
        if launchers:
            raise CommandRefused(
                f"--allow {launchers[0]!r} is refused: it runs its arguments as another "
                "command, so allowing it would allow every command"
            )
        openers = sorted(
            name for name in self.allow if Path(name).name in RUN_COMMANDS_THROUGH_OPTIONS
        )
        if openers:
            logger.warning(
                "--allow %s: %s can run any command through %s options, configuration or "
                "the files %s reads, so the allow-list no longer confines what runs",
                ", ".join(openers),
                "these programs" if len(openers) > 1 else "this program",
                "their" if len(openers) > 1 else "its",
                "they" if len(openers) > 1 else "it",
            )
        self._roots: Roots | None = None
        if self.roots:
            try:
                self._roots = Roots(self.roots)
            except PathError as error:
                raise CommandRefused(f"--root {error}") from None
            self.roots = [Path(path) for path in self._roots.paths]

    def argv(self, command: str) -> list[str]:
        """The argv that runs `command`.

        Raises:
            CommandRefused: With an allow-list: shell syntax, or a program not on the list.
        """
        if self.allow and not command.strip():
            raise CommandRefused("the command is empty")  # a shell would do nothing: none here
        program_bytes(command, f"the command {command!r}")
        if not self.allow:
            return [self.shell, "-c", command]
        return self._checked_argv(command)

    def _checked_argv(self, command: str) -> list[str]:
        if "\n" in command or "\r" in command or "\0" in command:
            raise CommandRefused(
                "this server runs commands without a shell (allow-list mode): one command per "
                "call, no newlines"
            )
        for char, what in _ALWAYS_REFUSED.items():
            if char in command:
                raise CommandRefused(
                    f"this server runs commands without a shell (allow-list mode): {what} "
                    f"is not allowed in {command!r}"
                )
        self._refuse_unquoted(command)
        try:
            # No operator or glob is left outside quotes: plain words, as a shell splits them.
            words = shlex.split(command)
        except ValueError as error:
            raise CommandRefused(f"cannot split {command!r} into words: {error}") from None
        if not words:
            raise CommandRefused("the command is empty")
        program = words[0]
        if program not in self.allow:
            allowed = ", ".join(sorted(self.allow))
            raise CommandRefused(
                f"{program!r} is not an allowed command (allowed: {allowed}); the first word "
                "must be one of them exactly as written"
            )
        resolved = shutil.which(program) if "/" not in program else program
        if resolved is None:
            raise CommandRefused(f"{program!r} is allowed but not found on PATH")
        return [resolved, *words[1:]]

    @staticmethod
    def _refuse_unquoted(command: str) -> None:
        """Refuse shell operators and globs outside quotes (quoted or after a backslash
        they are plain characters of a word, as a shell would pass them)."""
        quote: str | None = None
        escaped = False
        for index, char in enumerate(command):
            if escaped:
                escaped = False
            elif char == "\\" and quote != "'":
                escaped = True
            elif quote is not None:
                if char == quote:
                    quote = None
            elif char in "'\"":
                quote = char
            elif char in _OPERATORS:
                end = index
                while end < len(command) and command[end] in _OPERATORS:
                    end += 1
                raise CommandRefused(
                    f"this server runs commands without a shell (allow-list mode): "
                    f"{command[index:end]!r} (a shell operator) is not allowed in {command!r}; "
                    "quote it to pass it as is"
                )
            elif char in _GLOBS:
                raise CommandRefused(
                    f"this server runs commands without a shell (allow-list mode): the glob "
                    f"{char!r} in {command!r} would not be expanded; quote it to pass it as is"
                )

    def workdir(self, requested: str | None) -> str:
        """The directory a command runs in: `requested` (relative to the first root, or
        absolute inside one) or the first root; with no roots, anywhere.

        Raises:
            CommandRefused: The directory is outside the roots or not a directory.
        """
        if self._roots is None:
            if requested is None or not requested.strip():
                return os.getcwd()
            if not os.path.isdir(requested):
                raise CommandRefused(f"workdir {requested!r} is not a directory")
            return os.path.realpath(requested)
        try:
            if requested is None or not requested.strip():
                return self._roots.roots[0].directory()
            root, relative = self._roots.locate(requested)
            return root.directory(relative)
        except PathError as error:
            raise CommandRefused(f"workdir {requested!r} is refused: {error.reason}") from None

    def environment(self, tag_name: str, tag: str, source: Mapping[str, str]) -> dict[str, str]:
        """The environment of one command."""
        env = {name: source[name] for name in (*BASIC_ENV, *self.env_names) if name in source}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.update(QUIET_ENV)
        env[tag_name] = tag
        return env


def program_bytes(text: str, what: str, *, nul: bool = False) -> bytes:
    """`text` as the bytes a program receives (undecodable bytes that arrived as surrogate
    escapes go back to being those bytes).

    Args:
        text: What to send.
        what: How messages name it.
        nul: Whether a NUL character may pass (on stdin; never in arguments).

    Raises:
        CommandRefused: `text` holds a lone surrogate, or a NUL character where none may
            pass; the message names it and its offset.
    """
    offset = -1 if nul else text.find("\0")
    if offset >= 0:
        raise CommandRefused(
            f"{what} holds a NUL character at offset {offset}; no program can receive one"
        )
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as error:
        raise CommandRefused(
            f"{what} holds {text[error.start]!r} at offset {error.start}, a lone surrogate "
            "that is not text; no program can receive it"
        ) from None


def parse_names(values: Iterable[str]) -> tuple[str, ...]:
    """`--env` values (repeatable, or comma-separated) as a tuple of names."""
    names: list[str] = []
    for value in values:
        names.extend(part.strip() for part in value.split(",") if part.strip())
    return tuple(names)


def split_allow(values: Sequence[str]) -> frozenset[str]:
    """`--allow` values (repeatable, or comma-separated) as a set of names."""
    return frozenset(parse_names(values))
