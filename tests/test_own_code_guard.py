"""scripts/own_code_guard.py: copied code and prose are found, near-misses are not, exit codes.

Each test builds a small project (`src/`) and a small reference package in a temporary
directory and runs the guard on them as CI does, in a subprocess.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

GUARD = Path(__file__).resolve().parent.parent / "scripts" / "own_code_guard.py"

# The reference package's module: 7 counted lines (`else:` is not counted).
THEIRS = '''\
"""Settings helpers. The caller keeps both originals untouched."""


def merge_settings(base, extra):
    """Combine two mappings recursively now.

    Nested mappings are merged key by key, and the second mapping wins every conflict.
    """
    result = dict(base)
    for key, value in extra.items():
        if key in result and isinstance(result[key], dict):
            result[key] = merge_settings(result[key], value)
        else:
            result[key] = value
    return result


# Spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle/steps
'''


def project(tmp_path: Path, ours: str, allow: str = "") -> tuple[Path, Path, Path]:
    """Lay out `src/pkg/mod.py` (ours), `refpkg/mod.py` (theirs) and an allow-list."""
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text(textwrap.dedent(ours))
    reference = tmp_path / "refpkg"
    reference.mkdir()
    (reference / "mod.py").write_text(THEIRS)
    allow_file = tmp_path / "allow.toml"
    allow_file.write_text(textwrap.dedent(allow))
    return root, reference, allow_file


def guard(
    root: Path, reference: Path, allow: Path, *, python: tuple[str, ...] = (sys.executable,)
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *python,
            str(GUARD),
            *("--root", str(root), "--reference", str(reference)),
            "--allow",
            str(allow),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def summary(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout.splitlines()[-1]


def test_five_copied_lines_are_found_with_both_locations_four_are_not(tmp_path: Path) -> None:
    five = """\
    def merge_settings(base, extra):
        result = dict(base)
        for key, value in extra.items():
            if key in result and isinstance(result[key], dict):
                result[key] = merge_settings(result[key], value)
        return sorted(result)
    """
    root, reference, allow = project(tmp_path, five)
    result = guard(root, reference, allow)
    assert result.returncode == 1
    assert result.stdout.splitlines()[:2] == [
        "src/pkg/mod.py:1-5: 5 code lines shared with refpkg/mod.py:4-12",
        "    def merge_settings(base, extra):",
    ]
    assert summary(result).startswith("own code: 5 of 6 counted code lines in 1 runs of >= 5,")

    four = five.replace("def merge_settings(base, extra):", "def merge(base, extra):")
    (root / "src" / "pkg" / "mod.py").write_text(textwrap.dedent(four))
    result = guard(root, reference, allow)
    assert result.returncode == 0, result.stdout
    assert summary(result).startswith("own code: 0 of 6 counted code lines in 0 runs of >= 5,")


def test_reindented_and_respaced_copies_are_found(tmp_path: Path) -> None:
    root, reference, allow = project(
        tmp_path,
        """\
        class Settings:
            def merge_settings( base,extra ) :
                    result=dict( base )
                    for key,value in extra.items( ):
                        if key in result and isinstance(result[ key ],dict):
                            result[key]=merge_settings(result[key],   value)
                    else:
                        result [key] = value
        """,
    )
    result = guard(root, reference, allow)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        "src/pkg/mod.py:2-8: 6 code lines shared with refpkg/mod.py:4-14"
    )
    assert result.stdout.splitlines()[1] == "    def merge_settings( base,extra ) :"


def test_comments_imports_docstrings_and_blank_lines_do_not_break_a_run(tmp_path: Path) -> None:
    root, reference, allow = project(
        tmp_path,
        """\
        def merge_settings(base, extra):
            # start from a copy

            result = dict(base)
            import os
            from collections import (
                OrderedDict,
                defaultdict,
            )
            for key, value in extra.items():
                '''A docstring-like string statement.'''
                if key in result and isinstance(result[key], dict):  # nested
                    pass
                    result[key] = merge_settings(result[key], value)
        """,
    )
    result = guard(root, reference, allow)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        "src/pkg/mod.py:1-14: 5 code lines shared with refpkg/mod.py:4-12"
    )


def test_keyword_only_punctuation_and_bare_decorator_lines_are_not_counted(
    tmp_path: Path,
) -> None:
    # Four telling lines from the reference, padded with lines any file has: no finding.
    root, reference, allow = project(
        tmp_path,
        """\
        @property
        def merge_settings(base, extra):
            result = dict(base)
            for key, value in extra.items():
                if key in result and isinstance(result[key], dict):
                    pass
                else:
                    return None
            try:
                raise
            finally:
                pass
            return (
            )
        """,
    )
    result = guard(root, reference, allow)
    assert result.returncode == 0, result.stdout
    assert summary(result).startswith("own code: 0 of 4 counted code lines")


def test_a_shared_sentence_of_six_words_is_found_five_words_are_not(tmp_path: Path) -> None:
    root, reference, allow = project(
        tmp_path,
        """\
        def join(a, b):
            '''Combine two mappings recursively now.

            Note: the caller keeps both originals UNTOUCHED!
            '''
            # Both are walked once; nested mappings are merged key by key,
            # and the second mapping wins every conflict, as documented.
            # Spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle/steps
            return a | b
        """,
    )
    result = guard(root, reference, allow)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        # our 6-word sentence inside theirs, whatever the case and punctuation
        "src/pkg/mod.py:4: sentence shared with refpkg/mod.py:1",
        '    "the caller keeps both originals untouched"',
        # their sentence inside ours, over two comment lines; the URL is not prose
        "src/pkg/mod.py:6: sentence shared with refpkg/mod.py:7",
        '    "nested mappings are merged key by key and the second mapping wins every'
        ' conflict as documented"',
        "own code: 0 of 2 counted code lines in 0 runs of >= 5, and 2 sentences of >= 6 words,"
        " shared with refpkg (1 files); 0 allow-list entries used, 0 stale",
    ]


ALLOW_THE_COPY = '''\
[[allow]]
file = "src/pkg/mod.py"
text = """
def merge_settings(base, extra):
  result = dict(base)
  for key, value in extra.items():
    if key in result and isinstance(result[key], dict):
      result[key] = merge_settings(result[key], value)
"""
reason = "the reference API forces these lines"
'''

COPY = """\
class Merger:
    def merge_settings(base, extra):
        '''Ours.'''
        result = dict(base)
        for key, value in extra.items():
            if key in result and isinstance(result[key], dict):
                result[key] = merge_settings(result[key], value)
        return base
"""


def test_an_allow_listed_copy_passes_and_says_why(tmp_path: Path) -> None:
    root, reference, allow = project(tmp_path, COPY, ALLOW_THE_COPY)
    result = guard(root, reference, allow)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == (
        "allowed: src/pkg/mod.py: 'def merge_settings(base, extra):':"
        " the reference API forces these lines"
    )
    assert summary(result).endswith("1 allow-list entries used, 0 stale")


def test_an_allowance_excuses_only_the_lines_it_names(tmp_path: Path) -> None:
    whole_copy = THEIRS[THEIRS.index("def merge_settings") :]
    signature_only = """\
        [[allow]]
        file = "src/pkg/mod.py"
        text = "def merge_settings(base, extra):"
        reason = "the signature is forced"
        """
    root, reference, allow = project(tmp_path, whole_copy, signature_only)
    result = guard(root, reference, allow)
    assert result.returncode == 1
    assert result.stdout.splitlines()[2:5] == [
        "src/pkg/mod.py:6-12: 6 code lines shared with refpkg/mod.py:9-15",
        "    result = dict(base)",
        "allowed: src/pkg/mod.py: 'def merge_settings(base, extra):': the signature is forced",
    ]


def test_stale_allow_list_entries_fail(tmp_path: Path) -> None:
    allow = ALLOW_THE_COPY + textwrap.dedent("""\
        [[allow]]
        file = "src/pkg/mod.py"
        text = "return base"
        reason = "in the file, but not shared with any reference"

        [[allow]]
        file = "src/pkg/gone.py"
        text = "x = compute(1)"
        reason = "names a file that does not exist"
        """)
    root, reference, allow_file = project(tmp_path, COPY, allow)
    result = guard(root, reference, allow_file)
    assert result.returncode == 1
    assert result.stdout.splitlines()[1:3] == [
        "stale allow-list entry: src/pkg/mod.py: 'return base':"
        " those lines are no longer shared with a reference; remove it",
        "stale allow-list entry: src/pkg/gone.py: 'x = compute(1)':"
        " its text is not in that file; remove it",
    ]
    assert summary(result).endswith("1 allow-list entries used, 2 stale")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('file = "src/pkg/mod.py"\ntext = "x = 1"\n', "needs exactly the keys file, text, reason"),
        ('file = "src/pkg/mod.py"\ntext = "x = 1"\nreason = " "\n', "must be non-empty strings"),
        ('file = "src/pkg/mod.py"\ntext = "f(("\nreason = "r"\n', "must be whole Python lines"),
        ('file = "src/pkg/mod.py"\ntext = "pass"\nreason = "r"\n', "no counted code line"),
    ],
)
def test_a_malformed_allow_list_is_a_usage_error(tmp_path: Path, entry: str, message: str) -> None:
    root, reference, allow = project(tmp_path, COPY, "[[allow]]\n" + entry)
    result = guard(root, reference, allow)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    root, reference, allow = project(tmp_path, COPY)
    missing = guard(root, tmp_path / "no-such-package", allow)
    assert missing.returncode == 2
    assert "no-such-package: not a directory" in missing.stderr

    empty = tmp_path / "empty"
    empty.mkdir()
    no_tree = guard(empty, reference, allow)
    assert no_tree.returncode == 2
    assert "has none of src, servers/ to check" in no_tree.stderr

    (root / "src" / "pkg" / "broken.py").write_text("def f(:\n    '''never closed\n")
    broken = guard(root, reference, allow)
    assert broken.returncode == 2
    assert "src/pkg/broken.py: cannot be tokenised" in broken.stderr


def test_a_reference_package_that_is_not_installed_is_an_error_not_a_pass(
    tmp_path: Path,
) -> None:
    root, _, allow = project(tmp_path, COPY)
    # -S leaves site-packages off the path, as a python without the test extras would be.
    result = subprocess.run(
        [sys.executable, "-S", str(GUARD), "--root", str(root), "--allow", str(allow)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "reference package 'agents' is not installed" in result.stderr


def test_the_report_is_the_same_on_every_run(tmp_path: Path) -> None:
    root, reference, allow = project(
        tmp_path, COPY + "\n# The caller keeps both originals untouched.\n"
    )
    first, second = guard(root, reference, allow), guard(root, reference, allow)
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout


def test_the_real_tree_shares_nothing_but_the_allowed_lines() -> None:
    result = subprocess.run(
        [sys.executable, str(GUARD)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout
    assert result.stderr == ""
    assert summary(result).startswith("own code: 0 of ")
    assert "in 0 runs of >= 5, and 0 sentences" in summary(result)
    assert summary(result).startswith("own code: ")
    assert "shared with agents, mcp, mcp_types, fastmcp" in summary(result)
