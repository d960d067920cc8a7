#!/usr/bin/env python3
"""Fail when toolwire's code or prose repeats the source of the SDKs it is measured against.

toolwire matches openai-agents (and speaks MCP as the mcp SDK and FastMCP do) by behaviour,
which the differential tests prove; its text must be its own. This guard reads every ``*.py``
under ``src/`` and ``servers/`` and every ``*.py`` of the reference packages (by default the
installed ``agents``, ``mcp``, ``mcp_types`` and ``fastmcp``, found with
``importlib.util.find_spec``: run it with the project's virtualenv) and reports

* shared code: 5 or more consecutive counted lines of ours equal, once normalised, to
  consecutive counted lines of a reference file;
* shared prose: a docstring or comment sentence of ours, 6 or more words long, found
  verbatim inside a reference sentence, or a reference sentence of 6 or more words found
  verbatim inside one of ours.

What "counted", "normalised" and "sentence" mean is in ``own_code_scan.py``. Our files are
indexed once (every 5-line window, every 6-word window of our sentences) and each reference
file is tokenised once and streamed past that index, so the work grows with the total size of
both trees, not with their product.

The allow-list (``own_code_allow.toml`` beside this script unless ``--allow`` names another)
is for what the SDK's API or a protocol forces on us, such as a public signature. Each
``[[allow]]`` entry has ``file`` (relative to the root), ``text`` (the forced lines, copied
from our file as they stand) and ``reason``, all required. The text is read like any source:
its counted lines must appear in the file as consecutive counted lines (so re-spacing,
comments and docstrings in between do not matter, and no line number is involved), and its
docstring or comment sentences excuse the same sentences of that file. Shared windows that
touch the lines it covers are excused; an entry that excuses nothing is stale and fails the
run, so the list holds only what is still needed.

Exit status: 0 when nothing is reported, 1 on any unexcused finding or stale entry, 2 on a
usage error (a reference package not installed, a missing directory, a malformed allow-list,
a file of ours that cannot be tokenised).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import textwrap
import tokenize
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from own_code_scan import Scan, Sentence, read_scan, scan, sentences

RUN_LINES = 5
SENTENCE_WORDS = 6
REFERENCE_PACKAGES = ("agents", "mcp", "mcp_types", "fastmcp")
CHECKED_DIRS = ("src", "servers")
PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ALLOW = Path(__file__).resolve().with_name("own_code_allow.toml")
_UNREADABLE = (SyntaxError, tokenize.TokenError, UnicodeDecodeError)


class UsageError(Exception):
    """The guard cannot judge the tree: exit status 2."""


@dataclass(frozen=True)
class Finding:
    """One stretch of our text also found in a reference file."""

    file: str
    first: int
    last: int
    where: str  # the reference location, "package/path.py:row[-row]"
    shown: str  # our first line as written, or the normalised sentence
    counted: int  # counted code lines in the stretch; 0 for a sentence


@dataclass(frozen=True)
class Allowance:
    """An allow-list entry: lines of one file that may be shared, and why."""

    file: str
    head: str  # the entry's first line, to name it in the report
    lines: tuple[str, ...]  # its counted code lines, normalised as ours are
    phrases: frozenset[tuple[str, ...]]  # its docstring and comment sentences
    reason: str


@dataclass
class Excuses:
    """What the allow-list covers in one file of ours, each mapped to the entry's number."""

    rows: dict[int, int] = field(default_factory=dict)
    phrases: dict[tuple[str, ...], int] = field(default_factory=dict)


class Comparison:
    """Our files indexed once; reference files go past the index one at a time."""

    def __init__(self, ours: list[Scan]) -> None:
        self.ours = ours
        self.windows: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        for index, source in enumerate(ours):
            for start in range(len(source.lines) - RUN_LINES + 1):
                key = tuple(source.lines[start : start + RUN_LINES])
                self.windows.setdefault(key, []).append((index, start))
        self.sentences: list[tuple[int, Sentence]] = [
            (index, sentence)
            for index, source in enumerate(ours)
            for sentence in sentences(source.prose)
            if len(sentence.words) >= SENTENCE_WORDS
        ]
        # Each 6-word window of our sentences and where it sits: a reference sentence that
        # holds one of ours meets our opening window, one held by ours meets some window.
        self.grams: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        for number, (_, sentence) in enumerate(self.sentences):
            for offset in range(len(sentence.words) - SENTENCE_WORDS + 1):
                gram = sentence.words[offset : offset + SENTENCE_WORDS]
                self.grams.setdefault(gram, []).append((number, offset))
        self.code_hits: dict[tuple[int, int], tuple[str, int, int]] = {}
        self.prose_hits: dict[int, str] = {}

    def add_reference(self, ref: Scan) -> None:
        """Record where our windows and sentences occur in one reference file (first wins)."""
        lines = ref.lines
        for start in range(len(lines) - RUN_LINES + 1):
            for spot in self.windows.get(tuple(lines[start : start + RUN_LINES]), ()):
                hit = (ref.name, ref.rows[start], ref.rows[start + RUN_LINES - 1])
                self.code_hits.setdefault(spot, hit)
        for theirs in sentences(ref.prose):
            words = theirs.words
            for offset in range(len(words) - SENTENCE_WORDS + 1):
                for number, at in self.grams.get(words[offset : offset + SENTENCE_WORDS], ()):
                    mine = self.sentences[number][1].words
                    held_by_theirs = at == 0 and words[offset : offset + len(mine)] == mine
                    held_by_ours = offset == 0 and mine[at : at + len(words)] == words
                    if held_by_theirs or held_by_ours:
                        self.prose_hits.setdefault(number, f"{ref.name}:{theirs.row}")

    def findings(self, excused: dict[int, Excuses]) -> tuple[list[Finding], set[int]]:
        """Our shared stretches, less the excused ones, and the allow-list entries that excused.

        Args:
            excused: What the allow-list covers, by the index of our file.
        """
        found: list[Finding] = []
        used: set[int] = set()
        for index, source in enumerate(self.ours):
            covered = excused.get(index, Excuses())
            runs: list[list[int]] = []  # window starts; windows that overlap or touch join
            for start in sorted(start for (owner, start) in self.code_hits if owner == index):
                rows = source.rows[start : start + RUN_LINES]
                excusing = {covered.rows[row] for row in rows if row in covered.rows}
                if excusing:
                    used |= excusing
                elif runs and start <= runs[-1][-1] + RUN_LINES:
                    runs[-1].append(start)
                else:
                    runs.append([start])
            found += [self._code_finding(index, source, run) for run in runs]
            for number, (owner, sentence) in enumerate(self.sentences):
                if owner != index or number not in self.prose_hits:
                    continue
                if sentence.words in covered.phrases:
                    used.add(covered.phrases[sentence.words])
                    continue
                where = self.prose_hits[number]
                text = f'"{" ".join(sentence.words)}"'
                found.append(Finding(source.name, sentence.row, sentence.row, where, text, 0))
        found.sort(key=lambda finding: (finding.file, finding.first, finding.counted == 0))
        return found, used

    def _code_finding(self, index: int, source: Scan, run: list[int]) -> Finding:
        first, last = run[0], run[-1] + RUN_LINES - 1
        ref_name, ref_first, _ = self.code_hits[(index, run[0])]
        end_name, _, ref_last = self.code_hits[(index, run[-1])]
        where = f"{ref_name}:{ref_first}"
        if end_name == ref_name and ref_last > ref_first:
            where += f"-{ref_last}"
        shown = source.source[source.rows[first] - 1].strip()
        return Finding(
            source.name, source.rows[first], source.rows[last], where, shown, last - first + 1
        )


def excuse(source: Scan, allowance: Allowance, number: int, into: Excuses) -> bool:
    """Mark what `allowance` covers in `source`; False when its text is not there at all."""
    found = False
    width = len(allowance.lines)
    for start in range(len(source.lines) - width + 1) if width else ():
        if tuple(source.lines[start : start + width]) == allowance.lines:
            found = True
            for row in source.rows[start : start + width]:
                into.rows.setdefault(row, number)
    for sentence in sentences(source.prose):
        if sentence.words in allowance.phrases:
            found = True
            into.phrases.setdefault(sentence.words, number)
    return found


# --- inputs ----------------------------------------------------------------------------------


def reference_dirs(explicit: Sequence[Path]) -> list[Path]:
    """The trees to compare against: those given, else the installed reference packages."""
    for path in explicit:
        if not path.is_dir():
            raise UsageError(f"--reference {path}: not a directory")
    if explicit:
        return list(explicit)
    found: list[Path] = []
    for package in REFERENCE_PACKAGES:
        spec = importlib.util.find_spec(package)
        locations = list(spec.submodule_search_locations or []) if spec else []
        if not locations:
            raise UsageError(
                f"reference package {package!r} is not installed for {sys.executable}; "
                'run the guard with the project virtualenv (pip install -e ".[test]")'
            )
        found.append(Path(locations[0]))
    return found


def python_files(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*.py"), key=lambda path: path.relative_to(directory).parts)


def load_allowances(path: Path) -> list[Allowance]:
    """Read and check the allow-list file."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise UsageError(f"allow-list {path}: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"allow-list {path}: {error}") from error
    if set(data) - {"allow"}:
        raise UsageError(f"allow-list {path}: only [[allow]] tables belong here")
    entries = data.get("allow", [])
    if not isinstance(entries, list):
        raise UsageError(f"allow-list {path}: 'allow' must be an array of tables ([[allow]])")
    keys = {"file", "text", "reason"}
    allowances: list[Allowance] = []
    for number, entry in enumerate(entries, start=1):
        label = f"allow-list {path}, entry {number}"
        if not isinstance(entry, dict) or set(entry) != keys:
            got = sorted(entry) if isinstance(entry, dict) else type(entry).__name__
            raise UsageError(f"{label}: needs exactly the keys file, text, reason (got {got})")
        if not all(isinstance(entry[key], str) and entry[key].strip() for key in keys):
            raise UsageError(f"{label}: file, text and reason must be non-empty strings")
        text = textwrap.dedent(entry["text"]).strip("\n") + "\n"
        try:
            scanned = scan(label, text)
        except _UNREADABLE as error:
            raise UsageError(f"{label}: text must be whole Python lines: {error}") from error
        phrases = frozenset(s.words for s in sentences(scanned.prose))
        if not scanned.lines and not phrases:
            raise UsageError(f"{label}: text holds no counted code line and no sentence")
        head = text.strip().splitlines()[0].strip()
        reason = " ".join(entry["reason"].split())
        allowances.append(Allowance(entry["file"], head, tuple(scanned.lines), phrases, reason))
    return allowances


# --- the run ---------------------------------------------------------------------------------


def scan_ours(root: Path) -> list[Scan]:
    checked = [root / name for name in CHECKED_DIRS if (root / name).is_dir()]
    if not checked:
        raise UsageError(f"{root}: has none of {', '.join(CHECKED_DIRS)}/ to check")
    ours: list[Scan] = []
    for directory in checked:
        for path in python_files(directory):
            name = path.relative_to(root).as_posix()
            try:
                ours.append(read_scan(path, name))
            except _UNREADABLE as error:
                raise UsageError(f"{name}: cannot be tokenised: {error}") from error
    return ours


def run(root: Path, references: Sequence[Path], allowances: Sequence[Allowance]) -> int:
    """Compare, print the report, and return the exit status."""
    ours = scan_ours(root)
    comparison = Comparison(ours)
    unreadable = 0
    for directory in references:
        for path in python_files(directory):
            name = f"{directory.name}/{path.relative_to(directory).as_posix()}"
            try:
                comparison.add_reference(read_scan(path, name))
            except _UNREADABLE:
                unreadable += 1  # not ours to fix; the summary says how many

    by_name = {source.name: index for index, source in enumerate(ours)}
    excused: dict[int, Excuses] = {}
    absent: set[int] = set()
    for number, allowance in enumerate(allowances):
        index = by_name.get(allowance.file)
        covered = excused.setdefault(index, Excuses()) if index is not None else Excuses()
        if index is None or not excuse(ours[index], allowance, number, covered):
            absent.add(number)
    findings, used = comparison.findings(excused)

    for finding in findings:
        span = str(finding.first)
        if finding.last != finding.first:
            span += f"-{finding.last}"
        what = f"{finding.counted} code lines" if finding.counted else "sentence"
        print(f"{finding.file}:{span}: {what} shared with {finding.where}")
        print(f"    {finding.shown}")
    stale = 0
    for number, allowance in enumerate(allowances):
        head = allowance.head
        if number in used:
            print(f"allowed: {allowance.file}: {head!r}: {allowance.reason}")
            continue
        stale += 1
        why = (
            "its text is not in that file"
            if number in absent
            else "those lines are no longer shared with a reference"
        )
        print(f"stale allow-list entry: {allowance.file}: {head!r}: {why}; remove it")

    runs = [finding for finding in findings if finding.counted]
    packages = ", ".join(directory.name for directory in references)
    summary = (
        f"own code: {sum(f.counted for f in runs)} of {sum(len(s.lines) for s in ours)} counted"
        f" code lines in {len(runs)} runs of >= {RUN_LINES}, and {len(findings) - len(runs)}"
        f" sentences of >= {SENTENCE_WORDS} words, shared with {packages}"
        f" ({len({f.file for f in findings})} files); {len(used)} allow-list entries used,"
        f" {stale} stale"
    )
    if unreadable:
        summary += f"; {unreadable} reference files could not be tokenised"
    print(summary)
    return 1 if findings or stale else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Fail when src/ or servers/ repeat code or prose of the reference SDKs."
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=PROJECT_ROOT,
        help="the tree holding src/ and servers/ (default: this script's project)",
    )
    parser.add_argument(
        "--reference",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a source tree to compare with, repeatable (default: the installed "
        f"{', '.join(REFERENCE_PACKAGES)})",
    )
    parser.add_argument(
        "--allow",
        type=Path,
        default=DEFAULT_ALLOW,
        metavar="FILE",
        help=f"the allow-list (default: {DEFAULT_ALLOW.name} beside this script)",
    )
    args = parser.parse_args(argv)
    try:
        references = reference_dirs(args.reference)
        allowances = load_allowances(args.allow)
        return run(args.root.resolve(), references, allowances)
    except UsageError as error:
        print(f"own_code_guard: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
