#!/usr/bin/env bash
# Sets up a virtualenv from the project's own files and runs every check CI runs:
# ruff, mypy (strict), and the whole pytest suite (interop tests need Node 22 + the MCP
# Inspector, which scripts/install_node_tools.sh installs under .tw-tools/).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${TOOLWIRE_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[test]"

if [ -x scripts/install_node_tools.sh ]; then
    scripts/install_node_tools.sh
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
"$VENV/bin/python" -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure here" >&2
    exit 1
fi
exit "$rc"
