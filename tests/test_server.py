"""`Server` is one class whose public surface `help()` shows in full."""

from __future__ import annotations

import inspect
import pydoc
from typing import Any

import pytest

from toolwire import Server, UserError

# What users call on a server today; a name leaving this set is a breaking change.
PUBLIC = {
    "add_directory_resources",
    "add_prompt",
    "add_resource",
    "add_tool",
    "completion",
    "http_app",
    "notify_resource_updated",
    "on_session_end",
    "prompt",
    "prompt_registry",
    "prompts",
    "read_resource",
    "remove_prompt",
    "remove_resource",
    "remove_tool",
    "resource",
    "resource_registry",
    "run",
    "server_info",
    "serving",
    "session_closed",
    "session_ended",
    "session_opened",
    "sse_app",
    "sync_limiter",
    "tool",
    "tool_registry",
    "tools",
    "tools_listed",
}


def test_server_inherits_from_nothing_but_object() -> None:
    assert Server.__mro__ == (Server, object)


def test_the_public_methods_and_properties_are_all_there() -> None:
    assert {name for name in vars(Server) if not name.startswith("_")} == PUBLIC


def test_help_shows_each_public_member_with_its_docstring() -> None:
    page = pydoc.render_doc(Server, renderer=pydoc.plaintext)
    for name in sorted(PUBLIC):
        member = inspect.getattr_static(Server, name)
        doc = inspect.getdoc(member.fget if isinstance(member, property) else member)
        assert doc, f"Server.{name} has no docstring"
        assert name in page, f"help(Server) does not show {name}"
        assert doc.splitlines()[0] in page, f"help(Server) lacks the summary of {name}"


def test_the_options_of_a_method_are_documented_under_args() -> None:
    # Every option (keyword) a public method takes is named in its docstring's Args section,
    # unless the docstring says whose options it takes (add_resource's, add_prompt's).
    for name in sorted(PUBLIC):
        member = inspect.getattr_static(Server, name)
        if isinstance(member, property):
            continue
        doc = inspect.getdoc(member) or ""
        options = [
            parameter.name
            for parameter in inspect.signature(member).parameters.values()
            if parameter.kind in (parameter.KEYWORD_ONLY, parameter.VAR_KEYWORD)
        ]
        if not options or "options of `" in doc or "as `resource` does" in doc:
            continue
        assert "Args:" in doc, f"Server.{name} documents no Args"
        args = doc.split("Args:", 1)[1]
        for option in options:
            assert f"{option}:" in args, f"Server.{name} does not document {option!r}"


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"name": None}, TypeError, "Server name must be a string, not NoneType"),
        ({"version": 5}, TypeError, "version must be a string or None, not int"),
        ({"instructions": ["be nice"]}, TypeError, "instructions must be a string or None"),
        ({"max_sync_workers": 0}, ValueError, "max_sync_workers must be an integer >= 1, not 0"),
        ({"max_sync_workers": "8"}, ValueError, "max_sync_workers must be an integer >= 1"),
        ({"max_sync_workers": True}, ValueError, "max_sync_workers must be an integer >= 1"),
        ({"max_message_bytes": -1}, ValueError, "max_message_bytes must be an integer >= 1"),
        ({"max_message_bytes": 0}, ValueError, "max_message_bytes must be an integer >= 1"),
        ({"root_path": 5}, TypeError, "root_path must be a path, not int"),
        ({"tools": 3}, TypeError, "tools must be a list of tools, not int"),
        ({"tools": "add"}, TypeError, "tools must be a list of tools, not str"),
        ({"tools": None}, TypeError, "tools must be a list of tools, not NoneType"),
    ],
)
def test_options_that_could_never_serve_are_refused_when_the_server_is_made(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    """Else a null `serverInfo.name` or version number reaches clients, which reject the
    handshake, and a limit below one fails every session (or every stdio line) later."""
    arguments: dict[str, Any] = {"name": "s", **options}
    with pytest.raises(error, match=message):
        Server(**arguments)


@pytest.mark.parametrize(
    ("transport", "options", "error", "message"),
    [
        ("stdio", {"host": "127.0.0.1"}, TypeError, r"run\('stdio'\) got host; stdio takes"),
        ("stdio", {"max_message_bytes": 0}, ValueError, "max_message_bytes must be an integer"),
        ("http", {"port": "8000"}, ValueError, "port must be an integer from 0 .* not '8000'"),
        ("sse", {"port": 70000}, ValueError, "port must be an integer from 0 .* not 70000"),
        ("http", {"host": 5}, ValueError, "host must be an address or a name, not 5"),
        ("sse", {"host": " "}, ValueError, "host must be an address or a name, not ' '"),
        ("http", {"host": "my host"}, ValueError, "host: 'my host' is not a host; write 'name'"),
        ("sse", {"host": "a\nb"}, ValueError, r"host: 'a\\nb' is not a host; write 'name'"),
    ],
)
def test_run_refuses_an_option_it_cannot_use_before_serving(
    transport: str, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    """Before anything is bound or read: not an error from deep inside (a str port was
    "'str' object cannot be interpreted as an integer", a host of 5 an AttributeError)."""
    with pytest.raises(error, match=message):
        Server("s").run(transport, **options)


def test_a_tool_name_that_is_not_a_string_is_refused() -> None:
    """Else the listing sends `"name": 5` and a later refusal cannot even sort the names."""
    server = Server("s")

    def add(a: int, b: int) -> int:
        return a + b

    with pytest.raises(TypeError, match="a tool's name must be a string, not 5"):
        server.add_tool(add, name=5)  # type: ignore[arg-type]
    assert dict(server.tools) == {}
    with pytest.raises(KeyError, match="No tool named 'gone' on this server"):
        server.remove_tool("gone")


def _add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


PUBLISHING_REFUSED: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    ("add_tool", {"name": 0}, TypeError, "a tool's name must be a string, not 0"),
    ("add_tool", {"name": False}, TypeError, "a tool's name must be a string, not False"),
    ("add_tool", {"name": ""}, ValueError, r"add_tool\(\) got an empty name"),
    ("add_tool", {"description": 5}, TypeError, "description must be a string or None, not int"),
    ("add_tool", {"description": ["x"]}, TypeError, "description must be a string or None"),
    ("tool", {"name": 0}, TypeError, "a tool's name must be a string, not 0"),
    ("tool", {"description": 0.0}, TypeError, "description must be a string or None, not float"),
    ("add_prompt", {"name": 0}, UserError, "name of prompt '_add' must be a string, not int"),
    ("add_prompt", {"name": [1]}, UserError, "name of prompt '_add' must be a string, not list"),
    ("add_prompt", {"completers": 0}, UserError, "completers of prompt '_add' must be a dict"),
    ("add_resource", {"name": 0}, UserError, "name of resource 'config://x' must be a string"),
    ("add_resource", {"completers": 0}, ValueError, "resource 'config://x' has no variables"),
    ("add_directory_resources", {"root": 5}, TypeError, "root must be a path, not int"),
    ("add_directory_resources", {"root": None}, TypeError, "root must be a path, not NoneType"),
    ("add_directory_resources", {"uri_prefix": 5}, ValueError, "uri_prefix must be a string"),
    ("add_directory_resources", {"name": 0}, UserError, "name of directory resources 'file:///'"),
    ("add_directory_resources", {"max_listed": "10"}, ValueError, "max_listed must be an integer"),
    ("add_directory_resources", {"max_listed": True}, ValueError, "max_listed must be an integer"),
    (
        "add_directory_resources",
        {"max_bytes": 1.5},
        ValueError,
        "max_bytes must be an integer >= 0",
    ),
    (
        "add_directory_resources",
        {"max_bytes": [1]},
        ValueError,
        "max_bytes must be an integer >= 0",
    ),
    ("add_directory_resources", {"include_hidden": "no"}, TypeError, "include_hidden must be True"),
    ("add_directory_resources", {"include_hidden": 0}, TypeError, "include_hidden must be True"),
]


@pytest.mark.parametrize(("method", "options", "error", "message"), PUBLISHING_REFUSED)
def test_publishing_options_of_the_wrong_kind_are_refused_by_name(
    method: str, options: dict[str, Any], error: type[Exception], message: str, tmp_path: Any
) -> None:
    """A falsy wrong value (`name=0`) fell back to the default, a truthy string turned
    `include_hidden` on, and a string limit or a number for `uri_prefix` failed with a
    comparison TypeError or an AttributeError: each is refused, naming the option, and
    nothing is published."""
    server = Server("s", root_path=tmp_path)
    with pytest.raises(error, match=message):
        if method == "add_tool":
            server.add_tool(_add, **options)
        elif method == "tool":
            server.tool(**options)(_add)
        elif method == "add_prompt":
            server.add_prompt(_add, **options)
        elif method == "add_resource":
            server.add_resource("config://x", "text", **options)
        else:
            server.add_directory_resources(**{"root": tmp_path, **options})
    assert dict(server.tools) == {}
    assert dict(server.prompts) == {}
    assert list(server.resource_registry) == []
