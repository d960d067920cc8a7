"""`@server.resource` and its kin: what is refused at decoration (naming what is wrong), and
how a function's parameters receive a template's values."""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

import pytest

from toolwire import ToolContext
from toolwire.errors import UserError
from toolwire.protocol.wire.jsonrpc import ProtocolError
from toolwire.server import Server

pytestmark = pytest.mark.anyio


def test_the_decorator_returns_the_function_itself() -> None:
    server = Server("s")

    def plain() -> str:
        return "x"

    assert server.resource("a://b")(plain) is plain
    assert plain() == "x"
    assert [entry.uri for entry in server.resource_registry.listings()] == ["a://b"]


def test_a_malformed_template_is_refused_at_decoration_naming_it() -> None:
    server = Server("s")
    with pytest.raises(ValueError, match=r"invalid resource URI template 'x://\{id': '\{' at"):

        @server.resource("x://{id")
        def broken(id: str) -> str:
            return id

    assert len(server.resource_registry) == 0


@pytest.mark.parametrize(
    ("uri", "func", "message"),
    [
        (
            "x://{id}",
            lambda other: other,
            "resource template 'x://{id}': <lambda>() has no parameter 'id' for its variable",
        ),
        (
            "x://{id}",
            lambda id, extra: id,
            "resource template 'x://{id}': <lambda>() requires parameter 'extra', which the URI "
            "does not give",
        ),
        (
            "x://fixed",
            lambda needed: needed,
            "resource 'x://fixed': <lambda>() requires parameter 'needed', which the URI does "
            "not give (a fixed URI has no variables)",
        ),
    ],
)
def test_a_function_that_does_not_fit_its_template_is_refused(
    uri: str, func: Any, message: str
) -> None:
    with pytest.raises(ValueError) as refused:
        Server("s").resource(uri)(func)
    assert str(refused.value) == message


def test_positional_only_parameters_are_refused() -> None:
    def by_position(id: str, /) -> str:
        return id

    with pytest.raises(ValueError, match=r"parameter 'id' of .*by_position.* positional-only"):
        Server("s").resource("x://{id}")(by_position)


def test_duplicates_unknown_removals_and_bad_sources() -> None:
    server = Server("s")
    server.add_resource("x://a", "text")
    with pytest.raises(ValueError, match="a resource with URI 'x://a' is already published"):
        server.add_resource("x://a", "again")
    server.add_resource("x://{id}", lambda id: id)
    with pytest.raises(ValueError, match=r"a resource template 'x://\{id\}' is already published"):
        server.add_resource("x://{id}", lambda id: id)
    with pytest.raises(KeyError, match="no resource or resource template 'x://nothing'"):
        server.remove_resource("x://nothing")
    with pytest.raises(ValueError, match=r"resource template 'x://\{n\}/t' needs a function"):
        server.add_resource("x://{n}/t", "fixed text")
    with pytest.raises(TypeError, match="expected a function, text or bytes, not int"):
        server.add_resource("x://int", 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="completers name no variable of it: nope"):
        server.add_resource("y://{id}", lambda id: id, completers={"nope": lambda v: []})
    with pytest.raises(ValueError, match="has no variables to complete"):
        server.add_resource("y://fixed", "t", completers={"id": lambda v: []})
    server.remove_resource("x://{id}")
    assert set(server.resource_registry.templates) == set()


def test_a_completer_that_cannot_complete_is_refused_at_registration() -> None:
    # As a prompt's: not a request later failing with -32603.
    server = Server("s")
    with pytest.raises(UserError, match=r"completer for 'id' of resource template 'z://\{id\}'"):
        server.add_resource("z://{id}", lambda id: id, completers={"id": 5})  # type: ignore[dict-item]
    with pytest.raises(UserError, match="must list strings only"):
        server.add_resource("z://{id}", lambda id: id, completers={"id": ["a", 1]})  # type: ignore[dict-item]
    assert len(server.resource_registry) == 0
    server.add_resource("z://{id}", lambda id: id, completers={"id": ["a", "b"]})  # type: ignore[dict-item]
    template = server.resource_registry.template_for("z://{id}")
    assert template is not None and template.completers == {"id": ("a", "b")}


def test_template_for_exposes_names_and_completers() -> None:
    server = Server("s")

    def suggest(value: str) -> list[str]:
        return [value + "1"]

    @server.resource("repo://{owner}/{name}{?ref}", completers={"owner": suggest})
    def repo(owner: str, name: str, ref: str = "main") -> str:
        return f"{owner}/{name}@{ref}"

    template = server.resource_registry.template_for("repo://{owner}/{name}{?ref}")
    assert template is not None
    assert template.template.variables == ("owner", "name", "ref")
    assert template.completers == {"owner": suggest}
    assert server.resource_registry.template_for("repo://{owner}") is None


async def test_values_are_converted_to_the_annotated_types() -> None:
    server = Server("s")
    seen: dict[str, Any] = {}

    @server.resource("t://{n}/{flag}/{mode}{?limit}")
    def typed(n: int, flag: bool, mode: Literal["a", "b"], limit: int = 10) -> str:
        seen.update(n=n, flag=flag, mode=mode, limit=limit)
        return "ok"

    await server.read_resource("t://42/true/b?limit=3")
    assert seen == {"n": 42, "flag": True, "mode": "b", "limit": 3}
    await server.read_resource("t://-1/0/a")
    assert seen == {"n": -1, "flag": False, "mode": "a", "limit": 10}
    with pytest.raises(ProtocolError) as invalid:
        await server.read_resource("t://1/maybe/c?limit=x")
    assert invalid.value.code == -32602
    assert invalid.value.message == (
        "Invalid parameters for resource template 't://{n}/{flag}/{mode}{?limit}': "
        "flag: Input should be a valid boolean, unable to interpret input; "
        "mode: Input should be 'a' or 'b'; "
        "limit: Input should be a valid integer, unable to parse string as an integer"
    )


async def test_a_typed_function_with_star_args_takes_its_values() -> None:
    server = Server("s")

    @server.resource("v://{n}")
    def varargs(*extra: Any, n: int) -> str:
        return f"{n + 1} {extra}"

    assert (await server.read_resource("v://41"))[0]["text"] == "42 ()"


async def test_a_missing_query_value_without_default_is_named() -> None:
    server = Server("s")

    @server.resource("q://x{?term}")
    def search(term: str) -> str:
        return term

    assert (await server.read_resource("q://x?term=a%20b"))[0]["text"] == "a b"
    with pytest.raises(ProtocolError) as missing:
        await server.read_resource("q://x")
    assert missing.value.message == (
        "Invalid parameters for resource template 'q://x{?term}': term: Field required"
    )


async def test_kwargs_take_every_value_and_sync_functions_run_in_a_worker_thread() -> None:
    server = Server("s")
    threads: list[threading.Thread] = []

    @server.resource("k://{a}/{b}")
    def anything(**values: str) -> str:
        threads.append(threading.current_thread())
        return ",".join(f"{k}={v}" for k, v in sorted(values.items()))

    @server.resource("async://{a}")
    async def awaited(a: str) -> str:
        threads.append(threading.current_thread())
        return a

    assert (await server.read_resource("k://1/2"))[0]["text"] == "a=1,b=2"
    assert (await server.read_resource("async://z"))[0]["text"] == "z"
    assert threads[0] is not threading.main_thread()
    assert threads[1] is threading.main_thread()


def test_decorating_loads_no_pydantic() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from toolwire import Server\n"
        "s = Server('x')\n"
        "@s.resource('a://{id}/{n}')\n"
        "def f(id: str, n: int) -> str: return id\n"
        "s.add_resource('b://c', 'text')\n"
        "assert 'pydantic' not in sys.modules, 'pydantic loaded'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr


async def test_a_context_parameter_is_recognised_as_for_tools_and_prompts() -> None:
    """A resource function's first parameter gets the context when it is annotated as a tool's
    would be: bare, parametrised, as a string, or in `Annotated`. Before, the `Annotated` form
    was taken for a URI variable and refused at registration."""
    server = Server("s")

    @server.resource("plain://{name}")
    def plain(ctx: ToolContext[Any], name: str) -> str:
        return f"{type(ctx).__name__}:{ctx.tool_name}:{name}"

    @server.resource("noted://{name}")
    def noted(ctx: Annotated[ToolContext[Any], "the call"], name: str) -> str:
        return f"{type(ctx).__name__}:{ctx.tool_name}:{name}"

    for uri in ("plain://x", "noted://x"):
        [content] = await server.read_resource(uri)
        assert content["text"] == f"ToolContext:{uri}:x"
