"""Glob matching as the reference server's minimatch does it (dot: true), without blow-ups."""

from __future__ import annotations

import pytest
from toolwire_files._globs import Glob, GlobSet, excluded


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "sub/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "sub/deep/a.py", True),
        ("**/*.py", "sub/deep/a.pyc", False),
        ("sub/**", "sub/a/b", True),
        ("sub/**", "sub", True),
        ("sub/**/c", "sub/c", True),
        ("sub/**/c", "sub/a/b/c", True),
        ("sub/**/c", "other/a/c", False),
        ("**", ".env", True),
        ("*", ".hidden", True),
        ("f?.txt", "f1.txt", True),
        ("f?.txt", "f12.txt", False),
        ("f[0-4].txt", "f3.txt", True),
        ("f[0-4].txt", "f7.txt", False),
        ("f[!0-4].txt", "f7.txt", True),
        ("f[^0-4].txt", "f3.txt", False),
        ("a**b", "axxb", True),
        ("a**b", "ax/xb", False),
        ("**/**/z", "a/b/z", True),
        ("[unclosed", "[unclosed", True),
        ("id_*", "id_rsa", True),
        ("id_*", "my_id_rsa", False),
        (".env.*", ".env.local", True),
        (".env.*", ".env", False),
    ],
)
def test_matches(pattern: str, path: str, expected: bool) -> None:
    assert Glob(pattern).matches(path) is expected


def test_excluded_names_match_anywhere_and_hold_their_contents() -> None:
    assert excluded("src/node_modules/x/y.js", ["node_modules"])
    assert excluded("node_modules", ["node_modules"])
    assert not excluded("src/node_modules_old/y.js", ["node_modules"])
    assert excluded("a/b.log", ["**/*.log"])
    assert not excluded("a/b.log", ["*.log"])  # a star pattern is taken as written
    assert not excluded("a/b.log", [])


def test_glob_sets() -> None:
    deny = GlobSet([".env", "*.pem", "id_*"])
    assert deny.matches("server.pem") and deny.matches(".env") and deny.matches("id_ed25519")
    assert not deny.matches("env") and not GlobSet([]).matches("x")


@pytest.mark.parametrize(
    "pattern",
    ["**/**/**/**/**/**/**/**/z", "**a**a**a**a**a**a**a**z", "*a*a*a*a*a*a*a*a*a*a*a*b"],
)
def test_hostile_patterns_finish(pattern: str) -> None:
    # Each would take minutes as a backtracking regular expression on these paths.
    deep = "/".join(["a"] * 200) + "/b"
    long_name = "a" * 255
    assert Glob(pattern).matches(deep) is False
    assert Glob(pattern).matches(long_name) is False


def test_name_sets() -> None:
    from toolwire_files._globs import NameSet

    deny = NameSet([".env", ".env.*", "*.pem", "id_*", "k?y[0-9]", "a/b"])
    for name in (".env", ".env.local", "cert.pem", "id_rsa", "key7", ".ENV", "ID_RSA", "KEY7"):
        assert deny.matches(name), name
    for name in ("env", ".envrc", "pem", "my_id", "key", "a/b", "b"):
        assert not deny.matches(name), name
