"""Declared tool outputs and the `ToolOutput*` models, beside the Agents SDK.

`output_type`, `output_json_schema` and, for tools a program may call, the return annotation
decide a tool's output schema; each case here gives both implementations the same input and
compares the schema, or the refusal's class and message, and what validating an output does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable
from typing import Annotated, Any, Optional, TypedDict

import pytest
from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict as ExtTypedDict

import toolwire


class Point(BaseModel):
    x: int
    y: int = 0


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


class Other(BaseModel):
    b: str


class Movie(TypedDict):
    title: str
    year: int


class Film(ExtTypedDict):
    title: str
    year: int


@dataclasses.dataclass
class Pair:
    left: int
    right: str


def _outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", call())
    except Exception as error:
        return ("raised", type(error).__name__, str(error))


def _plain(a: int) -> Any:
    return {"x": a}


OUTPUT_TYPES: list[tuple[str, Any]] = [
    ("model", Point),
    ("recursive model", Node),
    ("model allowing extras", Loose),
    ("typing.TypedDict", Movie),
    ("typing_extensions.TypedDict", Film),
    ("dataclass", Pair),
    ("Annotated model", Annotated[Point, "meta"]),
    ("optional model", Optional[Point]),  # noqa: UP045
    ("union of models", Point | Other),
    ("dict[str, int]", dict[str, int]),
    ("bare dict", dict),
    ("list of models", list[Point]),
    ("int", int),
    ("str", str),
    ("None", None),
    ("Any", Any),
    ("not a type", 3),
    ("object", object),
]


@pytest.mark.parametrize(("label", "output_type"), OUTPUT_TYPES, ids=[c[0] for c in OUTPUT_TYPES])
def test_output_type_schemas_match_sdk(label: str, output_type: Any) -> None:
    import agents

    theirs = _outcome(
        lambda: agents.function_tool(_plain, output_type=output_type).output_json_schema
    )
    mine = _outcome(
        lambda: toolwire.function_tool(_plain, output_type=output_type).output_json_schema
    )
    assert mine == theirs, label


OUTPUT_SCHEMAS: list[tuple[str, Any]] = [
    ("object", {"type": "object"}),
    ("object in a list", {"type": ["object"]}),
    ("object or null", {"type": ["object", "null"]}),
    ("no type", {}),
    ("a list", [{"type": "object"}]),
    ("with properties", {"type": "object", "properties": {"a": {"type": "string"}}}),
    ("open object", {"type": "object", "additionalProperties": True}),
    ("ref to an object", {"$ref": "#/$defs/A", "$defs": {"A": {"type": "object"}}}),
    (
        "ref chain",
        {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "object"}}},
    ),
    ("ref cycle", {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}),
    ("ref to itself", {"$ref": "#"}),
    ("remote ref", {"$ref": "other.json#/A"}),
    ("ref to nothing", {"$ref": "#/$defs/Missing", "$defs": {}}),
    ("ref to a string", {"$ref": "#/$defs/A", "$defs": {"A": "object"}}),
    ("ref through a list", {"$ref": "#/items/0", "items": [{"type": "object"}]}),
    ("escaped ref", {"$ref": "#/$defs/a~1b~0c", "$defs": {"a/b~c": {"type": "object"}}}),
    ("percent-encoded ref", {"$ref": "#/$defs/A%20B", "$defs": {"A B": {"type": "object"}}}),
    ("ref to a string type", {"$ref": "#/$defs/A", "$defs": {"A": {"type": "string"}}}),
    ("ref not a string", {"$ref": 3, "type": "object"}),
]


@pytest.mark.parametrize(("label", "schema"), OUTPUT_SCHEMAS, ids=[c[0] for c in OUTPUT_SCHEMAS])
def test_output_json_schemas_match_sdk(label: str, schema: Any) -> None:
    import agents

    async def handler(ctx: Any, arguments: str) -> str:
        return arguments

    for build in (
        lambda m: m.function_tool(_plain, output_json_schema=schema).output_json_schema,
        lambda m: (
            m.FunctionTool("h", "", {}, handler, output_json_schema=schema).output_json_schema
        ),
    ):
        mine = _outcome(functools.partial(build, toolwire))
        assert mine == _outcome(functools.partial(build, agents)), label


def _returning(annotation: Any) -> Callable[..., Any]:
    def typed(a: int):  # type: ignore[no-untyped-def]
        return a

    if annotation is not _NO_ANNOTATION:
        typed.__annotations__["return"] = annotation
    return typed


_NO_ANNOTATION = object()

RETURNS: list[tuple[str, Any]] = [
    ("no annotation", _NO_ANNOTATION),
    ("None", None),
    ("NoneType", type(None)),
    ("str", str),
    ("Any", Any),
    ("Annotated str", Annotated[str, "x"]),
    ("Annotated Any", Annotated[Any, "x"]),
    ("optional str", Optional[str]),  # noqa: UP045
    ("int", int),
    ("model", Point),
    ("Annotated model", Annotated[Point, "meta"]),
    ("typing.TypedDict", Movie),
    ("typing_extensions.TypedDict", Film),
    ("dataclass", Pair),
    ("dict[str, int]", dict[str, int]),
    ("list of models", list[Point]),
]


@pytest.mark.parametrize(("label", "annotation"), RETURNS, ids=[c[0] for c in RETURNS])
@pytest.mark.parametrize("callers", [["programmatic"], ["direct"], ["direct", "programmatic"]])
def test_return_annotations_of_programmatic_tools_match_sdk(
    label: str, annotation: Any, callers: list[str]
) -> None:
    import agents

    func = _returning(annotation)
    theirs = _outcome(
        lambda: agents.function_tool(func, allowed_callers=callers).output_json_schema
    )
    mine = _outcome(
        lambda: toolwire.function_tool(func, allowed_callers=callers).output_json_schema
    )
    assert mine == theirs, label


@pytest.mark.parametrize("returned", [{"x": 1}, {"x": "2", "y": 3}, {"y": 1}, {"x": "no"}, None])
@pytest.mark.parametrize("details", [False, True])
def test_output_validation_through_the_return_annotation_matches_sdk(
    returned: Any, details: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agents
    import agents._debug
    from agents.tool_context import ToolContext as SdkToolContext

    monkeypatch.setattr(agents._debug, "DONT_LOG_TOOL_DATA", not details)
    monkeypatch.delenv("TOOLWIRE_LOG_TOOL_DATA", raising=False)
    monkeypatch.setenv("OPENAI_AGENTS_DONT_LOG_TOOL_DATA", "0" if details else "1")

    def make() -> Point:
        return returned  # type: ignore[no-any-return]

    results = []
    for module, context in ((agents, SdkToolContext), (toolwire, toolwire.ToolContext)):
        tool = module.function_tool(
            make, allowed_callers=["programmatic"], failure_error_function=None
        )
        ctx = context(None, tool_name="make", tool_call_id="c1", tool_arguments="{}")
        results.append(_outcome(lambda: repr(asyncio.run(tool.on_invoke_tool(ctx, "{}")))))  # noqa: B023
    assert results[1] == results[0]


OUTPUT_MODELS: list[tuple[str, dict[str, Any]]] = [
    ("ToolOutputText", {"text": "hi"}),
    ("ToolOutputText", {}),
    ("ToolOutputText", {"text": 3}),
    ("ToolOutputText", {"type": "image", "text": "hi"}),
    ("ToolOutputText", {"text": "hi", "extra": 1}),
    ("ToolOutputImage", {}),
    ("ToolOutputImage", {"image_url": "https://x/y.png"}),
    ("ToolOutputImage", {"file_id": "f1", "detail": "high"}),
    ("ToolOutputImage", {"image_url": None, "file_id": None}),
    ("ToolOutputImage", {"image_url": "u", "detail": "medium"}),
    ("ToolOutputImage", {"detail": "low"}),
    ("ToolOutputImage", {"image_url": "", "type": "file"}),
    ("ToolOutputFileContent", {}),
    ("ToolOutputFileContent", {"filename": "a.txt"}),
    ("ToolOutputFileContent", {"file_data": "QUJD", "filename": "a.txt"}),
    ("ToolOutputFileContent", {"file_url": "https://x/a.pdf"}),
    ("ToolOutputFileContent", {"file_id": "f"}),
    ("ToolOutputFileContent", {"file_data": None, "file_url": None, "file_id": None}),
    ("ToolOutputFileContent", {"file_id": 7}),
]


@pytest.mark.parametrize(("model", "data"), OUTPUT_MODELS)
def test_tool_output_models_validate_as_the_sdks_do(model: str, data: dict[str, Any]) -> None:
    import agents

    theirs = _outcome(lambda: repr(getattr(agents, model).model_validate(data)))
    mine = _outcome(lambda: repr(getattr(toolwire, model).model_validate(data)))
    assert mine == theirs
    theirs = _outcome(lambda: getattr(agents, model)(**data).model_dump())
    mine = _outcome(lambda: getattr(toolwire, model)(**data).model_dump())
    assert mine == theirs


def test_tool_output_models_have_the_sdks_fields() -> None:
    import agents

    for name in ("ToolOutputText", "ToolOutputImage", "ToolOutputFileContent"):
        ours, theirs = getattr(toolwire, name), getattr(agents, name)
        assert list(ours.model_fields) == list(theirs.model_fields)
        for field, info in theirs.model_fields.items():
            mine = ours.model_fields[field]
            assert (mine.annotation, mine.default) == (info.annotation, info.default), field
