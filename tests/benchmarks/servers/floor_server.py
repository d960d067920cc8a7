"""The floor loop: stdlib read-line / json.loads / dispatch / json.dumps, with arguments
validated by a pydantic model built for each function from its signature. No MCP library,
no threads, no asyncio: the least a Python server with validated arguments can do."""

import inspect
import json
import sys

from pydantic import create_model


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def echo(text: str) -> str:
    """Echo the text."""
    return text


def _model(func):
    fields = {
        name: (param.annotation, ... if param.default is param.empty else param.default)
        for name, param in inspect.signature(func).parameters.items()
    }
    return create_model(f"{func.__name__}_args", **fields)


FUNCTIONS = {func.__name__: func for func in (add, echo)}
MODELS = {name: _model(func) for name, func in FUNCTIONS.items()}
TOOLS = [
    {"name": name, "description": FUNCTIONS[name].__doc__, "inputSchema": model.model_json_schema()}
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
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "floor", "version": "1"},
            },
        )
    elif method == "tools/list":
        reply(message_id, {"tools": TOOLS})
    elif method == "tools/call":
        params = message["params"]
        arguments = MODELS[params["name"]].model_validate(params.get("arguments") or {})
        value = FUNCTIONS[params["name"]](**dict(arguments))
        reply(message_id, {"content": [{"type": "text", "text": str(value)}], "isError": False})
    else:
        reply(message_id, {})
