#!/usr/bin/env bash
# Install the Debian packages that some tests and the HTTP benchmark run as real peers:
#
#   wrk           the compiled HTTP load generator behind tests/benchmarks/bench_http.py
#                 and bench_scale.py
#   nginx         the load balancer in front of several toolwire processes (tests/scale/,
#                 bench_scale.py); each test runs its own non-root instance from a tmp dir
#   redis-server  the shared session/event store and change bus (tests/scale/)
#   tmux          a real terminal for the CLI's y/N approval prompt (tests/cli/)
#
# Debian's service scripts may start a system-wide nginx (port 80) and redis-server (port
# 6379) on install where the init system allows it; the tests never use those instances.
#
# Idempotent: a package whose command is already on PATH is not touched, so a second run does
# nothing and asks for no privileges. Uses apt-get directly as root, or through sudo when it is
# available without a password prompt.
#
# Exit status 3 means "these tools cannot be installed on this machine" (no apt-get, or no way
# to become root), as opposed to a failed install, the same convention as
# scripts/install_node_tools.sh: callers may go on without them where that is acceptable
# (a developer's machine) and must fail where it is not (CI).
#
# To add a tool, add one "command:package" pair to TOOLS below.
set -euo pipefail

TOOLS=(
    "wrk:wrk"
    "nginx:nginx"
    "redis-server:redis-server"
    "tmux:tmux"
)
UNAVAILABLE=3

# nginx lives in /usr/sbin, which a non-root user's PATH often lacks: look there too, as the
# tests do, so that an installed nginx counts as installed for everyone.
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

missing=()
for pair in "${TOOLS[@]}"; do
    command_name="${pair%%:*}"
    package="${pair#*:}"
    command -v "$command_name" >/dev/null 2>&1 || missing+=("$package")
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "system tools ready: ${TOOLS[*]%%:*}"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_system_tools.sh: apt-get is not available, so ${missing[*]} cannot be" \
        "installed by this script; install them with your system's package manager" >&2
    exit "$UNAVAILABLE"
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
else
    echo "install_system_tools.sh: installing ${missing[*]} needs root (apt-get), and this" \
        "user is not root and has no password-less sudo; run" \
        "'sudo apt-get install ${missing[*]}' once, then this again" >&2
    exit "$UNAVAILABLE"
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh container has empty package lists: without an update, install finds nothing.
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

for pair in "${TOOLS[@]}"; do
    command_name="${pair%%:*}"
    if ! command -v "$command_name" >/dev/null 2>&1; then
        echo "install_system_tools.sh: apt-get installed ${pair#*:}, but '$command_name'" \
            "is still not on PATH" >&2
        exit 1
    fi
done
echo "system tools ready: ${TOOLS[*]%%:*}"
