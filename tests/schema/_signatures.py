"""Hand-written tool functions for the differential suite (toolwire vs openai-agents 0.24.0).

Every `Case` is decorated once with `agents.function_tool` and once with `toolwire.function_tool`
using the same options; the tests compare the results. Functions whose annotations mention the
run context are built per *flavor* (the SDK's context classes for the SDK, toolwire's for
toolwire) so the remaining schema can be compared. Bodies mostly `return locals()`, which lets
the invocation tests check that both sides pass the same Python values (nested models as model
instances, *args/**kwargs routing, ...).

This module deliberately does not use `from __future__ import annotations`: the context factories
need their annotations evaluated where they are written. The future-annotations cases are
compiled from source with the future flag instead.
"""

import __future__

import datetime as dt
import functools
import textwrap
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum, IntEnum
from typing import Annotated, Any, Generic, Literal, NotRequired, Optional, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, constr
from typing_extensions import TypedDict


@dataclass(frozen=True)
class Flavor:
    """The context classes one implementation recognises."""

    name: str
    RunContextWrapper: Any
    ToolContext: Any


@dataclass(frozen=True)
class Case:
    """One sample: a callable (or a factory of one per flavor), decorator options, calls."""

    id: str
    target: Any
    options: dict[str, Any] = field(default_factory=dict)
    calls: dict[str, str] = field(default_factory=dict)
    flavored: bool = False

    def build(self, flavor: Flavor) -> Any:
        return self.target(flavor) if self.flavored else self.target


def agents_flavor() -> Flavor:
    from agents import RunContextWrapper
    from agents.tool_context import ToolContext

    return Flavor("agents", RunContextWrapper, ToolContext)


def toolwire_flavor() -> Flavor:
    from toolwire.context import RunContextWrapper, ToolContext

    return Flavor("toolwire", RunContextWrapper, ToolContext)


CASES: list[Case] = []
T = TypeVar("T")


def case(
    id: str, *, calls: dict[str, str] | None = None, flavored: bool = False, **options: Any
) -> Callable[[Any], Any]:
    """Register the decorated function (or flavor factory) as a case; returns it unchanged."""

    def register(target: Any) -> Any:
        CASES.append(Case(id, target, options, dict(calls or {}), flavored))
        return target

    return register


# -- shared types --------------------------------------------------------------------------


class Color(str, Enum):  # noqa: UP042 - the classic str-mixin spelling on purpose
    RED = "red"
    BLUE = "blue"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    street: str
    zip_code: str = Field(description="Postal code", pattern=r"^[0-9]{5}$")


class Person(BaseModel):
    name: str
    age: int = Field(ge=0, le=150)
    address: Address | None = None


class Point(TypedDict):
    x: int
    y: int


class Partial(TypedDict, total=False):
    label: str
    weight: float


class Mixed(TypedDict):
    need: int
    maybe: NotRequired[str]


@dataclass
class Box:
    width: int
    height: int = 1


class Tree(BaseModel):
    value: int
    children: list["Tree"] = Field(default_factory=list)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    good: bool


class Bag(BaseModel):
    tags: dict[str, int]


VALID_PERSON = (
    '{"person": {"name": "Ann", "age": 30, "address": {"street": "Main", "zip_code": "12345"}}}'
)

# -- docstring styles ----------------------------------------------------------------------


@case(
    "google_basic",
    calls={
        "valid": '{"city": "Oslo", "unit": "F"}',
        "missing": '{"unit": "F"}',
        "lax": '{"city": 5}',
    },
)
def get_weather(city: str, unit: str = "C") -> str:
    """Fetch the weather for a city.

    Longer explanation that is part of the description.

    Args:
        city: The city to look up.
        unit: Temperature unit, "C" or "F".

    Returns:
        A weather report.
    """
    return f"{city}: 20{unit}"


@case(
    "numpy_basic",
    calls={"valid": '{"values": [1, 2.5], "factor": 2}', "wrong": '{"values": 1, "factor": 2}'},
)
def scale(values: list[float], factor: float) -> list[float]:
    """Scale a list of numbers.

    Parameters
    ----------
    values : list[float]
        The numbers to scale.
    factor : float
        Multiplier applied to each number.
    """
    return [v * factor for v in values]


@case("numpy_returns_section", calls={"valid": '{"n": 3}'})
def numpy_ret(n: int) -> int:
    """Double a number.

    Parameters
    ----------
    n
        The number.

    Returns
    -------
    int
        Twice n.
    """
    return n * 2


@case("sphinx_autodetect", calls={"valid": '{"x": 2, "y": 3}', "lax": '{"x": "2"}'})
def sp(x: int, y: int = 0) -> int:
    """Multiply things.

    :param x: first factor
    :param y: second factor
    :return: product
    """
    return x * y


@case("sphinx_forced_name_override", name_override="sphinx_tool", docstring_style="sphinx")
def sp2(x: int, y: int = 0) -> int:
    """Multiply things.

    :param x: first factor
    :type x: int
    :param y: second factor
    :rtype: int
    """
    return x * y


@case("google_forced_on_numpy_doc", docstring_style="google")
def numpy_as_google(a: int) -> int:
    """Summary here.

    Parameters
    ----------
    a : int
        The a.
    """
    return a


@case("numpy_forced_on_google_doc", docstring_style="numpy")
def google_as_numpy(a: int) -> int:
    """Summary here.

    Args:
        a: The a.
    """
    return a


@case("sphinx_forced_on_google_doc", docstring_style="sphinx")
def google_as_sphinx(a: int) -> int:
    """Summary here.

    Args:
        a: The a.
    """
    return a


@case("autodetect_tie_sphinx_wins")
def tie(a: int, b: int) -> int:
    """Tie between styles.

    Args:
        a: google a.

    :param b: sphinx b
    """
    return a + b


@case("autodetect_numpy_beats_google")
def numpy_more(a: int) -> int:
    """Numpy scores two.

    Parameters
    ----------
    a : int
        numpy a.

    Returns
    -------
    int
        The a.

    Args:
        a: google a.
    """
    return a


@case("google_args_on_first_line")
def first_line_args(a: int, b: str) -> str:
    """Args:
    a: The a.
    b: The b.
    """
    return f"{a}{b}"


@case("google_no_blank_line_before_args")
def no_blank(a: int) -> int:
    """Summary line directly followed by a section.
    Args:
        a: Described even without the blank line.
    """
    return a


@case("google_arguments_alias_and_raises")
def alias_args(a: int, b: int = 1) -> int:
    """Use the Arguments alias.

    Arguments:
        a: First.
        b: Second,
            continued on another line.

    Raises:
        ValueError: never.
    """
    return a + b


@case(
    "google_starred_names",
    strict_mode=False,
    calls={"valid": '{"items": [1, 2], "opts": {"k": "v"}}'},
)
def starred(*items: int, **opts: str) -> dict[str, Any]:
    """Collect things.

    Args:
        *items: The items.
        **opts: The options.
    """
    return {"items": items, "opts": opts}


@case("docstring_unknown_param_ignored")
def unknown_param(a: int) -> int:
    """Has a stray entry.

    Args:
        a: Real.
        ghost: Not a parameter.
    """
    return a


@case("docstring_only_returns")
def only_returns(a: int) -> int:
    """Returns:
    The a.
    """
    return a


@case("docstring_unicode_multiparagraph")
def unicode_doc(name: str) -> str:
    """Grüße — sends a greeting ✓.

    Second paragraph with `code` and *emphasis*.

    Third paragraph.

    Args:
        name: Wer grüßt?
    """
    return name


@case("no_docstring", calls={"valid": '{"p": {"x": 1, "y": 2}, "q": {"x": 4, "y": 6}}'})
def distance(p: Point, q: Point) -> float:
    return float(((p["x"] - q["x"]) ** 2 + (p["y"] - q["y"]) ** 2) ** 0.5)


@case("use_docstring_info_false", use_docstring_info=False)
def no_doc_info(a: int, b: str = "x") -> str:
    """This description must not be used.

    Args:
        a: Nor this one.
        b: Nor this.
    """
    return f"{a}{b}"


@case("use_docstring_info_false_with_annotated", use_docstring_info=False)
def no_doc_info_annotated(a: Annotated[int, "kept from Annotated"]) -> int:
    """Ignored.

    Args:
        a: Ignored too.
    """
    return a


@case("description_override", description_override="Overridden description.")
def overridden(a: int) -> int:
    """Original description.

    Args:
        a: Still used.
    """
    return a


@case(
    "description_override_without_docstring_info",
    description_override="Only this.",
    use_docstring_info=False,
)
def overridden2(a: int) -> int:
    """Original."""
    return a


@case("name_override_unsanitized", name_override="has space!", calls={"valid": '{"a": 1}'})
def spaced(a: int) -> int:
    """Name is used verbatim."""
    return a


@case(
    "name_and_description_override", name_override="renamed", description_override="Renamed tool."
)
def to_rename(a: int) -> int:
    return a


# -- defaults, optional, literal, enum -----------------------------------------------------


@case(
    "defaults_int_str",
    calls={
        "valid": '{"a": 1}',
        "all": '{"a": 1, "b": 5, "label": "s"}',
        "lax": '{"a": "3"}',
        "wrong": '{"a": "x"}',
        "extra": '{"a": 1, "zzz": 2}',
        "float_for_int": '{"a": 1.5}',
        "bool_for_int": '{"a": true}',
    },
)
def add(a: int, b: int = 2, label: str = "sum") -> str:
    """Add two integers."""
    return f"{label}={a + b}"


@case(
    "defaults_nonstrict",
    strict_mode=False,
    calls={"valid": '{"a": 1}', "extra": '{"a": 1, "q": 0}'},
)
def add_ns(a: int, b: int = 2, flag: bool = True, ratio: float = 0.5) -> Any:
    """Add two integers (non-strict)."""
    return locals()


@case(
    "optional_default_none",
    calls={
        "valid": '{"query": "q", "limit": null, "mode": "deep"}',
        "bad_literal": '{"query": "q", "mode": "slow"}',
    },
)
def search(query: str, limit: Optional[int] = None, mode: Literal["fast", "deep"] = "fast") -> Any:  # noqa: UP045
    """Search documents."""
    return locals()


@case("optional_default_none_nonstrict", strict_mode=False, calls={"valid": '{"query": "q"}'})
def search_ns(query: str, limit: int | None = None) -> Any:
    """Search documents."""
    return locals()


@case("optional_required", calls={"valid": '{"a": null}', "missing": "{}", "int": '{"a": 4}'})
def opt_required(a: Optional[int]) -> Any:  # noqa: UP045
    return locals()


@case(
    "literal_int_and_mixed",
    calls={
        "valid": '{"n": 2, "m": "x"}',
        "bad": '{"n": 3, "m": 1}',
        "lax": '{"n": "2", "m": true}',
    },
)
def literals(n: Literal[1, 2], m: Literal["x", 1, True] = "x") -> Any:
    return locals()


@case(
    "str_enum_and_int_enum",
    calls={
        "valid": '{"c": "red", "lv": 2}',
        "bad": '{"c": "green", "lv": 2}',
        "lax": '{"c": "blue", "lv": "1"}',
    },
)
def enums(c: Color, lv: Level = Level.LOW) -> Any:
    """Enums.

    Args:
        c: A colour.
        lv: A level.
    """
    return locals()


@case(
    "enum_annotated_field_default_e1",
    calls={
        "valid": '{"c": "red", "note": "n"}',
        "k_too_small": '{"c": "red", "note": "n", "k": 0}',
    },
)
def e1(
    c: Color,
    note: Annotated[str, "from annotated"],
    k: int = Field(5, ge=1, description="field desc"),
) -> Any:
    """Edge case e1.

    Args:
        note: from docstring
    """
    return locals()


# -- Field and Annotated -------------------------------------------------------------------


@case("field_default_docstring_wins")
def field_doc(
    k: int = Field(3, ge=0, le=9, description="field says"), s: str = Field("d", min_length=1)
) -> Any:
    """Fields.

    Args:
        k: docstring says
    """
    return locals()


@case(
    "field_required_ellipsis", calls={"valid": '{"k": 5}', "missing": "{}", "too_big": '{"k": 50}'}
)
def field_required(k: int = Field(..., lt=10, description="below ten")) -> Any:
    return locals()


@case(
    "annotated_field_constraints",
    calls={"valid": '{"n": 3, "s": "ab"}', "bad": '{"n": -1, "s": "abcdefgh"}'},
)
def annotated_fields(
    n: Annotated[int, Field(ge=0, description="non-negative")],
    s: Annotated[str, Field(max_length=4)] = "ab",
) -> Any:
    """Annotated fields.

    Args:
        s: short string
    """
    return locals()


@case("annotated_field_and_field_default")
def annotated_and_default(
    n: Annotated[int, Field(ge=0)] = Field(4, le=10, description="dflt"),
) -> Any:
    return locals()


@case("annotated_string_docstring_wins")
def ann_strings(
    a: Annotated[int, "ann a"], b: Annotated[str, "ann b", "second ignored"] = "z"
) -> Any:
    """Docstring for a only.

    Args:
        a: doc a
    """
    return locals()


@case(
    "annotated_nested_and_pydantic_types",
    calls={"valid": '{"n": 3, "code": "AB"}', "bad": '{"n": 0, "code": "ab"}'},
)
def constrained(n: PositiveInt, code: constr(pattern=r"^[A-Z]+$")) -> Any:  # type: ignore[valid-type]
    return locals()


@case(
    "default_factory_and_mutable_default",
    strict_mode=False,
    calls={"valid": "{}", "given": '{"xs": [1], "ys": ["a"]}'},
)
def factories(xs: list[int] = Field(default_factory=list), ys: list[str] = ["q"]) -> Any:  # noqa: B006, B008
    return locals()


# -- containers ----------------------------------------------------------------------------


@case(
    "lists_nested",
    calls={
        "valid": '{"a": [1], "b": [["x"]], "c": [[1.5, 2]]}',
        "wrong": '{"a": ["x"], "b": [], "c": []}',
    },
)
def lists(a: list[int], b: list[list[str]], c: list[list[float]]) -> Any:
    return locals()


@case("dict_in_list_strict_raises")
def total(rows: list[dict[str, int]]) -> int:
    """Sum all values in all rows."""
    return sum(sum(r.values()) for r in rows)


@case(
    "dict_in_list_nonstrict",
    strict_mode=False,
    calls={"valid": '{"rows": [{"a": 1, "b": 2}]}', "wrong": '{"rows": [{"a": "x"}]}'},
)
def total_nonstrict(rows: list[dict[str, int]]) -> int:
    return sum(sum(r.values()) for r in rows)


@case("bare_dict_strict_raises")
def bare_dict(d: dict) -> Any:  # type: ignore[type-arg]
    return d


@case(
    "dict_optional_nonstrict_fetch",
    strict_mode=False,
    calls={"valid": '{"url": "u", "headers": {"a": "b"}}'},
)
def fetch(url: str, retries: int = 3, headers: dict[str, str] | None = None) -> str:
    """Fetch a URL (non-strict)."""
    return url


@case("tuple_fixed", calls={"valid": '{"pair": [1, "a"]}', "wrong": '{"pair": [1]}'})
def tuples(pair: tuple[int, str]) -> Any:
    return locals()


@case("tuple_fixed_nonstrict", strict_mode=False, calls={"valid": '{"pair": [1, "a"]}'})
def tuples_ns(pair: tuple[int, str]) -> Any:
    return locals()


@case("tuple_variadic", calls={"valid": '{"t": [1, 2, 3]}'})
def tuple_var(t: tuple[int, ...]) -> Any:
    return locals()


@case(
    "sets_and_frozensets",
    calls={"valid": '{"s": ["a", "b", "a"], "f": [3, 1]}', "wrong": '{"s": "a", "f": [1]}'},
)
def sets(s: set[str], f: frozenset[int] = frozenset()) -> Any:
    return locals()


@case(
    "union_scalars",
    calls={"int": '{"v": 1}', "str": '{"v": "a"}', "float": '{"v": 1.5}', "null": '{"v": null}'},
)
def unions(v: Union[int, str], w: int | float | None = None) -> Any:  # noqa: UP007
    return locals()


@case(
    "union_models_discriminated_by_literal",
    calls={"cat": '{"pet": {"kind": "cat", "lives": 9}}', "dog": '{"pet": {"good": true}}'},
)
def pets(pet: Cat | Dog) -> Any:
    return locals()


@case(
    "union_models_discriminator_field",
    calls={"dog": '{"pet": {"kind": "dog", "good": false}}', "bad": '{"pet": {"kind": "fish"}}'},
)
def pets2(pet: Annotated[Cat | Dog, Field(discriminator="kind")]) -> Any:
    return locals()


# -- variadics, kinds, untyped -------------------------------------------------------------


@case(
    "var_positional_e2",
    calls={"valid": '{"items": [1, 2], "flag": true}', "none": "{}", "wrong": '{"items": 3}'},
)
def e2(*items: int, flag: bool = False) -> Any:
    return {"items": items, "flag": flag}


@case(
    "var_positional_tuple_ellipsis",
    calls={"flat": '{"xs": [1, 2]}', "nested": '{"xs": [[1, 2], []]}'},
)
def var_tuple(*xs: tuple[int, ...]) -> Any:
    return xs


@case("var_positional_fixed_tuple_raises")
def var_fixed(*xs: tuple[int, str]) -> Any:
    return xs


@case(
    "positional_then_var_positional_then_named", calls={"valid": '{"a": 1, "rest": [2, 3], "b": 4}'}
)
def mixed_var(a: int, *rest: int, b: int = 0) -> Any:
    return {"a": a, "rest": rest, "b": b}


@case("var_keyword_strict_raises")
def kw(a: int, **extra: str) -> Any:
    return extra


@case(
    "var_keyword_nonstrict",
    strict_mode=False,
    calls={
        "valid": '{"a": 1, "extra": {"x": "y"}}',
        "flat_extra_forbidden": '{"a": 1, "x": "y"}',
        "collision": '{"a": 1, "extra": {"a": "2"}}',
        "wrong": '{"a": 1, "extra": {"x": 1}}',
    },
)
def kw_ns(a: int, **extra: str) -> Any:
    return {"a": a, **extra}


@case(
    "var_keyword_positional_only_no_collision",
    strict_mode=False,
    calls={"valid": '{"a": 1, "kw": {"a": 2}}'},
)
def kw_posonly(a: int, /, **kw: int) -> Any:
    return {"a": a, "kw": kw}


@case("keyword_only", calls={"valid": '{"a": 1, "b": "x"}', "missing": '{"a": 1}'})
def kwonly(a: int, *, b: str, c: bool = False) -> Any:
    return locals()


@case("positional_only", calls={"valid": '{"a": 1, "b": 2}'})
def posonly(a: int, /, b: int, *, c: int = 3) -> Any:
    return locals()


@case("untyped_strict", calls={"valid": '{"a": [1], "b": {"k": 1}}', "missing_b": '{"a": 1}'})
def anyp(a, b=None):  # type: ignore[no-untyped-def]
    return locals()


@case("untyped_nonstrict", strict_mode=False, calls={"valid": '{"a": "x"}'})
def anyp_ns(a, b=None):  # type: ignore[no-untyped-def]
    return locals()


@case("any_annotation", calls={"valid": '{"x": {"deep": [1, null]}}'})
def any_ann(x: Any) -> Any:
    return locals()


# -- models --------------------------------------------------------------------------------


@case(
    "nested_pydantic_register",
    calls={
        "valid": VALID_PERSON,
        "bad_zip": VALID_PERSON.replace("12345", "1234x"),
        "lax_age": '{"person": {"name": "A", "age": "7"}}',
    },
)
def register(person: Person) -> Any:
    """Register a person."""
    return locals()


@case("model_param_with_description_inlined_in_strict")
def described_model(person: Person) -> Any:
    """A $ref with a description sibling.

    Args:
        person: Who to register.
    """
    return locals()


@case("model_param_with_description_nonstrict", strict_mode=False)
def described_model_ns(person: Person) -> Any:
    """A $ref with a description sibling.

    Args:
        person: Who to register.
    """
    return locals()


@case(
    "optional_model_and_list_of_models",
    calls={"valid": '{"a": null, "many": [{"street": "s", "zip_code": "00000"}]}'},
)
def opt_model(a: Address | None, many: list[Address]) -> Any:
    return locals()


@case(
    "typeddict_total_false_and_notrequired",
    calls={"valid": '{"p": {}, "m": {"need": 1}}', "wrong": '{"p": {"weight": "x"}, "m": {}}'},
)
def typed_dicts(p: Partial, m: Mixed) -> Any:
    return locals()


@case(
    "dataclass_param",
    calls={"valid": '{"box": {"width": 2}}', "lax": '{"box": {"width": "2", "height": 3}}'},
)
def dataclass_param(box: Box) -> Any:
    return locals()


@case(
    "recursive_model",
    calls={"valid": '{"tree": {"value": 1, "children": [{"value": 2, "children": []}]}}'},
)
def recursive(tree: Tree) -> Any:
    return locals()


@case(
    "model_extra_forbid",
    calls={"valid": '{"s": {"a": 1}}', "extra_inside": '{"s": {"a": 1, "b": 2}}'},
)
def forbid(s: Strict) -> Any:
    return locals()


@case("model_with_dict_strict_raises")
def bag(b: Bag) -> Any:
    return locals()


@case("model_with_dict_nonstrict", strict_mode=False, calls={"valid": '{"b": {"tags": {"x": 1}}}'})
def bag_ns(b: Bag) -> Any:
    return locals()


@case("forward_ref_string_annotation", calls={"valid": '{"later": {"v": "x"}}'})
def forward(later: "LaterModel") -> Any:  # LaterModel is defined below on purpose
    return locals()


class LaterModel(BaseModel):
    v: str


# -- special scalar types ------------------------------------------------------------------


@case(
    "datetime_uuid_bytes_decimal",
    calls={
        "valid": '{"when": "2024-01-02T03:04:05Z", "day": "2024-01-02", "at": "10:11", "span": "PT5M",'
        ' "ident": "12345678-1234-5678-1234-567812345678", "blob": "aGk=", "amount": "1.50"}',
        "wrong": '{"when": "yesterday", "day": 1, "at": "x", "span": "y", "ident": "z", "blob": 1, "amount": "abc"}',
    },
)
def special(
    when: dt.datetime,
    day: dt.date,
    at: dt.time,
    span: dt.timedelta,
    ident: uuid.UUID,
    blob: bytes,
    amount: Decimal,
) -> Any:
    return locals()


@case("special_types_nonstrict_with_defaults", strict_mode=False)
def special_ns(
    ident: uuid.UUID | None = None,
    amount: Decimal = Decimal("1.5"),
    when: dt.date = dt.date(2020, 1, 1),
) -> Any:
    return locals()


# -- context -------------------------------------------------------------------------------


@case("context_wrapper_first", flavored=True, calls={"valid": '{"greeting": "hi"}'})
def ctx_first(f: Flavor) -> Any:
    async def whoami(ctx: f.RunContextWrapper[dict], greeting: str) -> Any:
        """Greet the current user from context."""
        return {"ctx": ctx, "greeting": greeting}

    return whoami


@case("tool_context_first_sync", flavored=True, calls={"valid": '{"a": 1}'})
def tctx_first(f: Flavor) -> Any:
    def tctx(ctx: f.ToolContext[Any], a: int) -> Any:
        """Tool context.

        Args:
            ctx: Not in the schema.
            a: The a.
        """
        return {"ctx": ctx, "a": a}

    return tctx


@case("context_only_param", flavored=True, calls={"valid": "{}", "extra": '{"x": 1}'})
def ctx_only(f: Flavor) -> Any:
    def only_ctx(ctx: f.RunContextWrapper) -> Any:
        return {"ctx": ctx}

    return only_ctx


@case("context_not_first_raises", flavored=True)
def ctx_second_factory(f: Flavor) -> Any:
    def ctx_second(a: int, ctx: f.RunContextWrapper[Any]) -> Any:
        return a

    return ctx_second


@case("tool_context_not_first_raises", flavored=True)
def tctx_second_factory(f: Flavor) -> Any:
    async def tctx_third(a: int, b: int, tc: f.ToolContext) -> Any:
        return a

    return tctx_third


@case("context_first_unannotated_is_a_param", calls={"valid": '{"ctx": 1, "a": 2}'})
def unannotated_ctx(ctx, a: int) -> Any:  # type: ignore[no-untyped-def]
    return locals()


# -- callables, async, odd inputs ----------------------------------------------------------


class WeatherTool:
    """Weather lookup as a callable class."""

    def __call__(self, city: str, days: int = 1) -> Any:
        return {"city": city, "days": days}


class Described:
    """Class summary (used when __call__ also has a docstring)."""

    def __call__(self, q: str) -> Any:
        """Call summary.

        Args:
            q: The query.
        """
        return q


class AsyncCallable:
    async def __call__(self, n: int) -> Any:
        return n + 1


class Wetterstation_ä:  # noqa: PLC2401 - a non-ASCII class name on purpose
    def __call__(self, x: int) -> int:
        return x


case("callable_instance", calls={"valid": '{"city": "Rome"}'})(WeatherTool())
case("callable_instance_call_and_class_docstrings", calls={"valid": '{"q": "x"}'})(Described())
case("callable_instance_async", calls={"valid": '{"n": 1}'})(AsyncCallable())
case("callable_instance_unsafe_class_name_raises")(Wetterstation_ä())
case(
    "callable_instance_unsafe_class_name_with_override",
    name_override="station",
    calls={"valid": '{"x": 1}'},
)(Wetterstation_ä())


def _plain(a: int, b: int) -> int:
    return a + b


case("functools_partial_raises")(functools.partial(_plain, 1))


@functools.wraps(_plain)
def _wrapped(*args: Any, **kwargs: Any) -> Any:
    return _plain(*args, **kwargs)


case("decorated_wrapper_function")(_wrapped)


class Holder:
    def method(self, a: int) -> Any:
        """Bound method."""
        return (type(self).__name__, a)


case("bound_method", calls={"valid": '{"a": 2}'})(Holder().method)
case("lambda_name", calls={"valid": '{"x": 1}'})(lambda x: x)


@case("async_function", calls={"valid": '{"a": 1, "b": 2}', "missing": '{"a": 1}'})
async def async_add(a: int, b: int) -> int:
    """Add asynchronously."""
    return a + b


@case("async_function_with_timeout", timeout=5.0, calls={"valid": '{"a": 1}'})
async def async_timed(a: int) -> int:
    return a


@case("sync_function_with_timeout_raises", timeout=1.0)
def sync_timed(a: int) -> int:
    return a


@case("raising_body", calls={"valid": '{"a": 1}', "lax": '{"a": "1"}'})
def explodes(a: int) -> int:
    raise RuntimeError("secret detail")


@case("raising_body_async_value_error", calls={"valid": '{"a": 1}'})
async def explodes_async(a: int) -> int:
    raise ValueError(f"bad value {a}")


@case("returns_model_and_none_values", calls={"valid": '{"a": 1}'})
def returns_model(a: int) -> Any:
    return [Address(street="s", zip_code="12345"), None, {"k": a}]


@case("no_params", calls={"valid": "{}", "extra": '{"x": 1}'})
def no_params() -> str:
    """Takes nothing."""
    return "ok"


@case("param_named_like_basemodel_attribute")
def shadow(json: str, schema: int = 1) -> Any:
    return locals()


@case("param_named_model_prefix", calls={"valid": '{"model_name": "m"}'})
def model_prefix(model_name: str) -> Any:
    return locals()


# -- from __future__ import annotations ----------------------------------------------------

_FUTURE_SOURCE = textwrap.dedent(
    '''
    def future_tool(a: int, b: list[Address] | None = None, c: Color = Color.RED,
                    d: Annotated[int, "ann d"] = 1) -> dict[str, Any]:
        """Compiled with postponed evaluation.

        Args:
            a: The a.
        """
        return locals()


    def future_ctx(ctx: RunContextWrapper[Any], a: int) -> Any:
        return {"ctx": ctx, "a": a}
    '''
)


def _compile_future(f: Flavor | None) -> dict[str, Any]:
    namespace: dict[str, Any] = {
        "Address": Address,
        "Color": Color,
        "Annotated": Annotated,
        "Any": Any,
        "RunContextWrapper": f.RunContextWrapper if f else None,
    }
    code = compile(
        _FUTURE_SOURCE,
        "<future>",
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    exec(code, namespace)
    return namespace


_FUTURE = _compile_future(None)
case(
    "future_annotations", calls={"valid": '{"a": 1, "b": [{"street": "s", "zip_code": "12345"}]}'}
)(_FUTURE["future_tool"])
case("future_annotations_context_first", flavored=True, calls={"valid": '{"a": 1}'})(
    lambda f: _compile_future(f)["future_ctx"]
)


# -- more callable shapes and option validation (added after probing the first implementation) --


@case("google_typed_entries")
def typed_doc(a: int, b: str = "x") -> Any:
    """Typed google.

    Args:
        a (int): the a.
        b (str, optional): the b. Defaults to "x".
    """
    return locals()


case("empty_name_and_description_overrides", name_override="", description_override="")(typed_doc)


class AsClass:
    """A class used as the tool itself."""

    def __init__(self, n: int) -> None:
        self.n = n


case("class_itself", calls={"valid": '{"n": 2}'})(AsClass)


class GenericCall(Generic[T]):
    def __call__(self, x: int) -> int:
        return x


class InstanceAnnotations:
    def __call__(self, x: int) -> int:
        return x


_with_annotations = InstanceAnnotations()
_with_annotations.__annotations__ = {"x": int}


class StaticCall:
    @staticmethod
    def __call__(x: int) -> int:
        return x


class DecoratedCall:
    @functools.lru_cache  # noqa: B019 - a decorated __call__ on purpose
    def __call__(self, x: int) -> int:
        return x


class Unbound:
    def m(self, a: int) -> Any:
        return a


case("callable_generic_raises")(GenericCall())
case("callable_instance_annotations_raises")(_with_annotations)
case("callable_staticmethod_call_raises")(StaticCall())
case("callable_decorated_call_raises")(DecoratedCall())
case("unbound_method_self_is_a_param", calls={"valid": '{"self": 1, "a": 2}'})(Unbound.m)
case("builtin_function", calls={"valid": '{"obj": [1, 2]}', "wrong": '{"obj": 3}'})(len)


@case("callable_context_first", flavored=True, calls={"valid": '{"x": 1}'})
def _ctx_call(f: Flavor) -> Any:
    class CtxCall:
        def __call__(self, ctx: f.RunContextWrapper, x: int) -> Any:
            return {"ctx": ctx, "x": x}

    return CtxCall()


@case("callable_context_second_raises", flavored=True)
def _ctx_call_second(f: Flavor) -> Any:
    class CtxCallSecond:
        def __call__(self, x: int, ctx: f.RunContextWrapper) -> int:
            return x

    return CtxCallSecond()


case("timeout_bool_raises", timeout=True)(async_timed)
case("timeout_negative_raises", timeout=-1)(async_timed)
case("timeout_infinite_raises", timeout=float("inf"))(async_timed)
case("allowed_callers_empty_raises", allowed_callers=[])(async_timed)
case("allowed_callers_unknown_raises", allowed_callers=["robot"])(async_timed)
case("output_type_and_schema_raise", output_type=dict, output_json_schema={"type": "object"})(
    async_timed
)
