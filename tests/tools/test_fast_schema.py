"""The fast decoration path writes exactly the schema `function_schema` (and the SDK) would.

Simple signatures skip building a pydantic model at decoration time (`fast_function_schema`
in schema/function_schema.py). These tests generate such signatures and compare the fast
result byte for byte (key order included) with `toolwire.schema.function_schema` and with
`agents.function_tool`, and check that everything outside the fast path's grammar is left to
the ordinary path.
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import ToolContext, function_tool
from toolwire.schema.function_schema import fast_function_schema, function_schema

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)

_LEAVES = ["int", "str", "float", "bool", "Any", 'Literal["a", "b c"]', "Literal[1, 2, 3]"]


def _annotation() -> st.SearchStrategy[str | None]:
    leaf = st.sampled_from(_LEAVES)
    tree = st.recursive(
        leaf,
        lambda inner: st.one_of(
            inner.map(lambda a: f"list[{a}]"),
            inner.filter(lambda a: a != "Any").map(lambda a: f"Optional[{a}]"),
            inner.filter(lambda a: a != "Any").map(lambda a: f"{a} | None"),
        ),
        max_leaves=3,
    )
    return st.one_of(st.none(), tree)


_DEFAULTS = st.sampled_from(
    ["<none>", "None", "0", "7", "-3", "2.5", "1e-05", "True", "False", "''", "'x y'", "'é'"]
)


@st.composite
def signatures(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    names = draw(
        st.lists(
            st.sampled_from(["a", "b", "city", "zip_code", "x2", "limit", "q_", "value", "Ünï"]),
            unique=True,
            max_size=5,
        )
    )
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(f"ctx: {draw(st.sampled_from(['ToolContext[Any]', 'RunContextWrapper']))}")
    seen_default = False
    keyword_only = False
    docs: list[str] = []
    for name in names:
        annotation = draw(_annotation())
        default = draw(_DEFAULTS)
        if seen_default and default == "<none>" and not keyword_only:
            parts.append("*")
            keyword_only = True
        text = name if annotation is None else f"{name}: {annotation}"
        if default != "<none>":
            text += f" = {default}"
            seen_default = True
        parts.append(text)
        if draw(st.booleans()):
            docs.append(
                f"        {name}: {draw(st.sampled_from(['The value.', 'two  words', '']))}"
            )
    summary = draw(st.sampled_from(["", "Do it.", "Do it.\n\n    More text."]))
    doc = ""
    if summary or docs:
        doc = f'    """{summary}\n'
        if docs:
            doc += "\n    Args:\n" + "\n".join(docs) + "\n"
        doc += '    """\n'
    source = f"def tool_fn({', '.join(parts)}) -> int:\n{doc}    return 1\n"
    options = {
        "strict_json_schema": draw(st.booleans()),
        "name_override": draw(st.sampled_from([None, "renamed", "has space!"])),
        "use_docstring_info": draw(st.booleans()),
    }
    return source, options


def _compile(source: str, flavor: str = "toolwire") -> Any:
    namespace: dict[str, Any] = {}
    if flavor == "toolwire":
        header = "from toolwire import RunContextWrapper, ToolContext\n"
    else:
        header = (
            "from agents import RunContextWrapper\nfrom agents.tool_context import ToolContext\n"
        )
    header += "from typing import Any, Literal, Optional\n"
    exec(compile(header + source, "<generated>", "exec"), namespace)
    return namespace["tool_fn"]


def _fast(func: Any, options: dict[str, Any]) -> Any:
    return fast_function_schema(
        func,
        docstring_style=None,
        description_override=None,
        lossless_docstring=False,
        **options,
    )


@SETTINGS
@given(signatures())
def test_fast_schema_equals_function_schema(sample: tuple[str, dict[str, Any]]) -> None:
    source, options = sample
    func = _compile(source)
    fast = _fast(func, options)
    assert fast is not None, source  # the grammar above is all inside the fast path
    slow = function_schema(func, **options)
    assert json.dumps(fast.params_json_schema) == json.dumps(slow.params_json_schema), source
    assert (fast.name, fast.description, fast.takes_context) == (
        slow.name,
        slow.description,
        slow.takes_context,
    )
    assert fast.return_annotation == slow.return_annotation


@SETTINGS
@given(signatures())
def test_fast_decoration_matches_the_sdk(sample: tuple[str, dict[str, Any]]) -> None:
    import agents

    source, options = sample
    sdk_options = {
        "strict_mode": options["strict_json_schema"],
        "name_override": options["name_override"],
        "use_docstring_info": options["use_docstring_info"],
    }
    ours = function_tool(_compile(source), **sdk_options)
    theirs = agents.function_tool(_compile(source, "agents"), **sdk_options)
    assert json.dumps(ours.params_json_schema) == json.dumps(theirs.params_json_schema), source
    assert (ours.name, ours.description, ours.strict_json_schema) == (
        theirs.name,
        theirs.description,
        theirs.strict_json_schema,
    )


@pytest.mark.parametrize(
    "source",
    [
        "def tool_fn(a: Annotated[int, 'desc']) -> int: ...",
        "def tool_fn(a: int = Field(3, ge=0)) -> int: ...",
        "def tool_fn(*a: int) -> int: ...",
        "def tool_fn(**a: int) -> int: ...",
        "def tool_fn(a: dict[str, int]) -> int: ...",
        "def tool_fn(a: Literal['only']) -> int: ...",
        "def tool_fn(a: Literal[True, False]) -> int: ...",
        "def tool_fn(a: int | str) -> int: ...",
        "def tool_fn(a: None | int) -> int: ...",
        "def tool_fn(a: Optional[Any]) -> int: ...",
        "def tool_fn(a: list) -> int: ...",
        "def tool_fn(a: tuple[int, ...]) -> int: ...",
        "def tool_fn(a: int = float('inf')) -> int: ...",
        "def tool_fn(a: list[int] = []) -> int: ...",
        "def tool_fn(_a: int) -> int: ...",
        "def tool_fn(model_a: int) -> int: ...",
        "def tool_fn(json: int) -> int: ...",
        "def tool_fn(a: int, ctx: ToolContext[Any]) -> int: ...",
        "def tool_fn(a: Undefined) -> int: ...",
    ],
)
def test_everything_else_takes_the_ordinary_path(source: str) -> None:
    namespace: dict[str, Any] = {}
    header = (
        "from __future__ import annotations\n"
        "from typing import Annotated, Any, Literal, Optional\n"
        "from pydantic import Field\n"
        "from toolwire import ToolContext\n"
    )
    exec(header + source, namespace)
    options = {"strict_json_schema": False, "name_override": None, "use_docstring_info": True}
    assert _fast(namespace["tool_fn"], options) is None


def test_lazy_model_is_built_on_first_call_and_shared_by_copies() -> None:
    import copy

    @function_tool
    def lazy(a: int, b: str = "x") -> str:
        """Join."""
        return f"{a}{b}"

    plan = lazy.on_invoke_tool.plan  # type: ignore[attr-defined]
    assert plan.schema is None  # decorated without a pydantic model
    twin = copy.copy(lazy)
    ctx: ToolContext[Any] = ToolContext(None, tool_name="lazy", tool_call_id="1", tool_arguments="")
    assert asyncio.run(twin.on_invoke_tool(ctx, '{"a": 4}')) == "4x"
    assert plan.schema is not None and plan.schema.params_pydantic_model.__name__ == "lazy_args"
    assert asyncio.run(lazy.on_invoke_tool(ctx, '{"a": 5, "b": "y"}')) == "5y"


def test_generated_source_is_valid_python() -> None:
    # Guards the generator itself: a keyword-only marker after a default keeps it compilable.
    func = _compile(textwrap.dedent("def tool_fn(a: int = 1, *, b: str) -> int:\n    return 1\n"))
    assert _fast(
        func, {"strict_json_schema": True, "name_override": None, "use_docstring_info": True}
    )


def test_reserved_field_names_are_basemodels_public_attributes() -> None:
    """The fast path refuses the names pydantic refuses; the list is written out (so decorating
    never imports pydantic) and must follow the installed pydantic."""
    from pydantic import BaseModel

    from toolwire.schema.function_schema import RESERVED_FIELD_NAMES

    public = {name for name in dir(BaseModel) if not name.startswith(("_", "model_"))}
    assert public == RESERVED_FIELD_NAMES


@pytest.mark.parametrize("name", ["json", "schema", "validate", "copy", "dict"])
def test_reserved_names_take_the_ordinary_path(name: str) -> None:
    namespace: dict[str, Any] = {}
    exec(f"def tool({name}: int) -> int:\n    return {name}\n", namespace)
    fast = fast_function_schema(
        namespace["tool"],
        docstring_style=None,
        name_override=None,
        description_override=None,
        use_docstring_info=True,
        strict_json_schema=True,
        lossless_docstring=False,
    )
    assert fast is None
