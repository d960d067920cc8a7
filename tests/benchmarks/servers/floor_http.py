"""The HTTP floor: one Starlette endpoint under uvicorn, no MCP library. It parses the
JSON-RPC body, validates `tools/call` arguments with a pydantic model built from the
function's signature (as floor_server.py does over stdio) and answers with JSON. No sessions,
no SSE, no header checks: the least a Python HTTP server with validated arguments can do.

    python tests/benchmarks/servers/floor_http.py --port N
"""

import argparse
import inspect
import json

import uvicorn
from pydantic import create_model
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


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


def _result(message):
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "floor", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        params = message["params"]
        arguments = MODELS[params["name"]].model_validate(params.get("arguments") or {})
        value = FUNCTIONS[params["name"]](**dict(arguments))
        return {"content": [{"type": "text", "text": str(value)}], "isError": False}
    return {}


async def mcp(request: Request) -> Response:
    message = json.loads(await request.body())
    if message.get("id") is None:
        return Response(status_code=202)
    return JSONResponse({"jsonrpc": "2.0", "id": message["id"], "result": _result(message)})


app = Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stateless", action="store_true")  # always stateless
    parser.add_argument("--json-response", action="store_true")  # always JSON
    args = parser.parse_args()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
