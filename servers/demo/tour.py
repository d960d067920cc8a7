"""A short tour of the demo server: spawn it over stdio and show the MCP exchange.

Run from the repository root: `python -m servers.demo.tour`. It speaks raw JSON-RPC over the
child's stdin/stdout, exactly as Claude Desktop or the Agents SDK would, and prints each
request and reply: every tool called, every resource read, every prompt completed and got.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

PROTOCOL_VERSION = "2025-11-25"


class StdioPeer:
    """The client side of one stdio connection, just enough for the tour."""

    def __init__(self, command: list[str]) -> None:
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr
        )
        self._next_id = 0

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self._write({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        print(f"-> {_short(message)}")
        self._write(message)
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                print(f"<- {_short(reply)}")
                return reply
            print(f"<- {_short(reply)}   (notification)")

    def close(self) -> int:
        assert self._process.stdin is not None
        self._process.stdin.close()
        return self._process.wait(timeout=10)

    def _write(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message).encode() + b"\n")
        self._process.stdin.flush()

    def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its stdout")
        return dict(json.loads(line))


def _short(message: dict[str, Any], limit: int = 220) -> str:
    text = json.dumps(message, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _sample_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    samples = {"string": "hello", "integer": 3, "number": 1.5, "boolean": True}
    arguments: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        arguments[name] = prop.get("default", samples.get(prop.get("type", ""), "x"))
    return arguments


def main() -> int:
    started = time.perf_counter()
    peer = StdioPeer([sys.executable, "-m", "servers.demo"])
    peer.request(
        "initialize",
        {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "toolwire-tour", "version": "1"},
        },
    )
    peer.notify("notifications/initialized")
    tools = peer.request("tools/list")["result"]["tools"]
    ready = time.perf_counter() - started
    print(f"\n{len(tools)} tools, first tools/list answered {ready * 1000:.0f} ms after spawn\n")
    for tool in tools:
        arguments = _sample_arguments(tool["inputSchema"])
        params: dict[str, Any] = {"name": tool["name"], "arguments": arguments}
        params["_meta"] = {"progressToken": tool["name"]}
        result = peer.request("tools/call", params).get("result", {})
        kinds = [block.get("type") for block in result.get("content", [])]
        print(f"   {tool['name']}: isError={result.get('isError')} content={kinds}\n")
    _resources_and_prompts(peer)
    return peer.close()


def _resources_and_prompts(peer: StdioPeer) -> None:
    """List and read the resources, then list, complete and get the prompts."""
    resources = peer.request("resources/list")["result"]["resources"]
    templates = peer.request("resources/templates/list")["result"]["resourceTemplates"]
    print(f"\n{len(resources)} resources, {len(templates)} resource templates\n")
    uris = [resource["uri"] for resource in resources]
    uris += [template["uriTemplate"].replace("{title}", "welcome") for template in templates]
    for uri in uris:
        contents = peer.request("resources/read", {"uri": uri})["result"]["contents"]
        print(f"   {uri}: {contents[0].get('text', '')!r}\n")
    prompts = peer.request("prompts/list")["result"]["prompts"]
    print(f"\n{len(prompts)} prompts\n")
    for prompt in prompts:
        argument = prompt["arguments"][0]["name"]
        ref = {"type": "ref/prompt", "name": prompt["name"]}
        completion = peer.request(
            "completion/complete", {"ref": ref, "argument": {"name": argument, "value": "w"}}
        )["result"]["completion"]
        print(f"   {argument} completes to {completion['values']}\n")
        arguments = {argument: completion["values"][0]} if completion["values"] else {}
        got = peer.request("prompts/get", {"name": prompt["name"], "arguments": arguments})
        roles = [(m["role"], m["content"]["type"]) for m in got["result"]["messages"]]
        print(f"   {prompt['name']}: messages={roles}\n")


if __name__ == "__main__":
    raise SystemExit(main())
