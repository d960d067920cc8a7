"""The floor loop: stdlib read-line / json.loads / dispatch / json.dumps, pydantic validation."""

import json
import sys

from pydantic import create_model


def add(a: int, b: int) -> int:
    return a + b


def echo(text: str) -> str:
    return text


FUNCTIONS = {"add": add, "echo": echo}
MODELS = {
    "add": create_model("add_args", a=(int, ...), b=(int, ...)),
    "echo": create_model("echo_args", text=(str, ...)),
}
TOOLS = [
    {"name": name, "description": name, "inputSchema": model.model_json_schema()}
    for name, model in MODELS.items()
]


def reply(message_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    method, message_id = message.get("method"), message.get("id")
    if message_id is None:
        continue
    if method == "initialize":
        reply(
            message_id,
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "floor", "version": "1"},
            },
        )
    elif method == "tools/list":
        reply(message_id, {"tools": TOOLS})
    elif method == "tools/call":
        params = message["params"]
        args = MODELS[params["name"]](**params.get("arguments", {}))
        value = FUNCTIONS[params["name"]](**args.model_dump())
        reply(message_id, {"content": [{"type": "text", "text": str(value)}], "isError": False})
    else:
        reply(message_id, {})
