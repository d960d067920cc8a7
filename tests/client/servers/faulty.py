"""A stdlib-only MCP server on stdio that misbehaves on `tools/call` as told by argv[1].

Modes: `ok` (answers), `die` (exits mid-call), `garbage` (writes a line that is not JSON),
`wrong_id` (answers another id), `hang` (never answers), `close` (closes stdout and waits),
`null_result` (answers the call's id with `"result": null`), `bad_bytes` (writes a line
that is not UTF-8, then answers), `deep` (lists a tool whose schema nests deeper than the
`mcp` client parses), `loud` (writes a 65 MiB line to stderr, then answers), `loud_die`
(writes 50 lines of 100,000 characters and then `last words` to stderr, and exits),
`huge` and `huge_id_last` (answer with 65 MiB of text, the id first or as the last key),
`forging` (writes a junk line holding a carriage return, a terminal escape and U+2028, then
answers), `slow_start` (waits a second before reading anything, then answers), `loop_cursor` (every
`tools/list` and `prompts/list` page has `again` as its next cursor), `endless_cursor` (each
page has a new next cursor), `server_error` and `server_timeout` (answer the call with the
JSON-RPC error -32000 or -32001, codes servers may use for their own errors), `required`
(its tool requires `zeta` and `alpha`), `listed_meta` (its tool is listed with a `_meta`),
`odd_names` (lists tools named `_tool`, `çode` and `plain-`).
Every message received is appended, one JSON line each, to the file named by argv[2]
(when given), so a test can see what reached the server (a `notifications/cancelled`).
"""

from __future__ import annotations

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
RECORD = sys.argv[2] if len(sys.argv) > 2 else None

TOOL = {
    "name": "work",
    "description": "Does some work.",
    "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
}


PAGED = MODE in ("loop_cursor", "endless_cursor")
CAPABILITIES = {"tools": {}, "prompts": {}} if PAGED else {"tools": {}}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def record(line: str) -> None:
    if RECORD:
        with open(RECORD, "a", encoding="utf-8") as out:
            out.write(line.strip() + "\n")


if MODE == "listed_meta":
    TOOL = {**TOOL, "_meta": {"example.com/ui": "ui://work", "example.com/shared": "listed"}}
if MODE == "required":
    TOOL = {**TOOL, "inputSchema": {"type": "object", "required": ["zeta", "alpha"]}}


def deep() -> dict[str, object]:
    schema: dict[str, object] = {"type": "object", "properties": {}}
    inner = schema
    for _ in range(300):
        nested: dict[str, object] = {"type": "object", "properties": {}}
        inner["properties"] = {"a": nested}
        inner = nested
    return {**TOOL, "inputSchema": schema}


def answer(message: dict[str, object]) -> None:
    method = message.get("method")
    ident = message.get("id")
    if method == "initialize":
        params = message.get("params") or {}
        version = params.get("protocolVersion", "2025-11-25") if isinstance(params, dict) else ""
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": version, "capabilities": CAPABILITIES,
            "serverInfo": {"name": "faulty", "version": "0"}}})  # fmt: skip
    elif method in ("tools/list", "prompts/list") and PAGED:
        key = method.split("/")[0]
        page = [TOOL] if key == "tools" else [{"name": "ask"}]
        after = "again" if MODE == "loop_cursor" else f"page-{ident}"
        send({"jsonrpc": "2.0", "id": ident, "result": {key: page, "nextCursor": after}})
    elif method == "tools/list":
        tools = [deep() if MODE == "deep" else TOOL]
        if MODE == "odd_names":
            tools = [{**TOOL, "name": name} for name in ("_tool", "çode", "plain-")]
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": tools}})
    elif method == "tools/call":
        if MODE == "die":
            os._exit(3)
        if MODE == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            return
        if MODE == "wrong_id":
            send({"jsonrpc": "2.0", "id": 987654, "result": {"content": []}})
            return
        if MODE == "hang":
            return
        if MODE in ("loud", "loud_die"):
            lines = ["e" * (65 * 1024 * 1024)] if MODE == "loud" else ["e" * 100_000] * 50
            for line in lines:
                sys.stderr.write(line + "\n")
            if MODE == "loud_die":
                sys.stderr.write("last words\n")
                sys.stderr.flush()
                os._exit(5)
            sys.stderr.flush()
        if MODE in ("huge", "huge_id_last") and message.get("params", {}).get("arguments"):
            result = {"content": [{"type": "text", "text": "x" * (65 * 1024 * 1024)}]}
            if MODE == "huge":
                send({"jsonrpc": "2.0", "id": ident, "result": result})
            else:
                send({"result": result, "jsonrpc": "2.0", "id": ident})
            return
        if MODE in ("server_error", "server_timeout"):
            error = {"code": -32000, "message": "rate limited: try again in a minute"}
            if MODE == "server_timeout":
                error = {"code": -32001, "message": "the upstream API did not answer in 30 s"}
            send({"jsonrpc": "2.0", "id": ident, "error": error})
            return
        if MODE == "bad_bytes":
            sys.stdout.buffer.write(b"\xff\xfe not utf-8\n")
        if MODE == "forging":
            sys.stdout.write("junk\rERROR:toolwire:forged record\x1b[2K\u2028more\n")
        if MODE == "null_result":
            send({"jsonrpc": "2.0", "id": ident, "result": None})
            return
        if MODE == "close":
            os.close(1)
            time.sleep(30)
            os._exit(0)
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "content": [{"type": "text", "text": "worked"}], "isError": False}})  # fmt: skip
    elif ident is not None and method is not None:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "nope"}})


def main() -> None:
    if MODE == "slow_start":
        time.sleep(1)
    for line in sys.stdin:
        record(line)
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            answer(message)


if __name__ == "__main__":
    main()
