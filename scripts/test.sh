#!/usr/bin/env bash
# Sets up a virtualenv from the project's own files and runs every check CI runs:
# ruff, mypy (strict), and the whole pytest suite (interop tests need Node 22 + the MCP
# Inspector, and tests/conformance/ the official conformance harness, which
# scripts/install_node_tools.sh installs under .tw-tools/).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${TOOLWIRE_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[test]"
# The reference servers, each its own package (servers/<name>/pyproject.toml); --no-deps keeps
# pip from fetching a released toolwire in place of this checkout's.
"$VENV/bin/python" -m pip install -q --no-deps -e servers/apply_patch -e servers/files \
    -e servers/shell

# Node 22, the MCP Inspector and the conformance harness for the interop and conformance
# tests. Where they cannot be installed (status 3:
# no npm, or not Linux x86_64), a developer's run goes on and those tests skip with the reason;
# under CI=true that is a failure, as is any failed install.
in_ci=false
[[ "${CI:-}" =~ ^([Tt][Rr][Uu][Ee]|1|[Yy][Ee][Ss])$ ]] && in_ci=true
if [ -x scripts/install_node_tools.sh ]; then
    node_status=0
    scripts/install_node_tools.sh || node_status=$?
    if [ "$node_status" -eq 3 ] && [ "$in_ci" = false ]; then
        echo "test.sh: going on without the Node tools; the MCP Inspector and conformance" \
            "tests will skip" >&2
    elif [ "$node_status" -eq 3 ]; then
        echo "test.sh: CI=$CI and the Node tools cannot be installed here (see above):" \
            "CI must provide npm on Linux x86_64" >&2
        exit 1
    elif [ "$node_status" -ne 0 ]; then
        echo "test.sh: installing the Node tools failed (status $node_status)" >&2
        exit "$node_status"
    fi
fi

# wrk, nginx and redis-server (Debian packages) for the tests and benchmarks that drive real HTTP
# peers: same convention as above (status 3: cannot be installed here).
if [ -x scripts/install_system_tools.sh ]; then
    system_status=0
    scripts/install_system_tools.sh || system_status=$?
    if [ "$system_status" -eq 3 ] && [ "$in_ci" = false ]; then
        echo "test.sh: going on without the system tools; the tests that need them will skip" >&2
    elif [ "$system_status" -eq 3 ]; then
        echo "test.sh: CI=$CI and the system tools cannot be installed here (see above)" >&2
        exit 1
    elif [ "$system_status" -ne 0 ]; then
        echo "test.sh: installing the system tools failed (status $system_status)" >&2
        exit "$system_status"
    fi
fi

echo "== ruff"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check src tests servers
echo "== mypy --strict"
"$VENV/bin/mypy"
echo "== own code"
# src/ and servers/ against the installed openai-agents, mcp and fastmcp sources (issue #10).
"$VENV/bin/python" scripts/own_code_guard.py
echo "== pytest"
set +e
# One worker process per core, at most four (pytest-xdist): most tests wait on subprocesses and
# sockets, so this halves the run on two cores. `-n 0` after it runs everything in one process.
"$VENV/bin/python" -m pytest -n auto --maxprocesses=4 "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure here" >&2
    exit 1
fi
exit "$rc"
