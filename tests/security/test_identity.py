"""`Identity`, `BearerAuth` and the verifier shapes they accept (pure, no transport)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import toolwire
from toolwire import BearerAuth, Identity, Server
from toolwire.protocol.auth.bearer import bearer_auth
from toolwire.protocol.auth.identity import parse_scopes, same_caller, scope_refusal

pytestmark = pytest.mark.anyio


def test_identity_is_exported_and_read_only() -> None:
    who = toolwire.Identity("alice", client_id="cli", scopes="a b", claims={"org": "x"})
    assert who.scopes == frozenset({"a", "b"})
    assert who.principal == ("alice", "cli")
    assert dict(who.claims) == {"org": "x"}
    with pytest.raises(AttributeError, match="read-only"):
        who.subject = "mallory"  # type: ignore[misc]
    with pytest.raises(TypeError):
        who.claims["org"] = "y"  # type: ignore[index]


def test_a_string_of_scopes_is_split_as_oauth_writes_them() -> None:
    assert parse_scopes("files:read  files:write") == {"files:read", "files:write"}
    assert parse_scopes(["x"]) == {"x"}
    assert parse_scopes(None) == frozenset()
    with pytest.raises(ValueError, match="'a b' is not a scope name"):
        parse_scopes(["a b"])
    with pytest.raises(TypeError, match="must hold strings"):
        parse_scopes([1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="space-separated string or a list"):
        parse_scopes({"a": 1})  # type: ignore[arg-type]


def test_equality_and_same_caller() -> None:
    one = Identity("alice", client_id="c", scopes=["a"], expires_at=10)
    assert one == Identity("alice", client_id="c", scopes="a", expires_at=10)
    assert hash(one) == hash(Identity("alice", client_id="c", scopes="a", expires_at=10))
    stepped_up = Identity("alice", client_id="c", scopes=["a", "b"], expires_at=99)
    assert one != stepped_up
    assert same_caller(one, stepped_up)  # a refreshed token keeps its session
    assert not same_caller(one, Identity("bob", client_id="c", scopes=["a"]))
    assert not same_caller(one, Identity("alice", client_id="other"))
    assert same_caller(None, None)
    assert not same_caller(one, None)
    assert not same_caller(None, one)
    # an application's own middleware may identify callers otherwise: equality then
    assert same_caller("ada", "ada")
    assert not same_caller("ada", "bob")
    assert not same_caller("ada", one)


def test_repr_names_the_caller_and_never_a_token() -> None:
    class AccessTokenLike:
        token = "s3cret-token"
        client_id = "cli"
        scopes = ["mcp:tools"]
        expires_at = None
        resource = None
        subject = "alice"
        claims = None

    who = Identity.from_token_info(AccessTokenLike())
    assert "s3cret" not in repr(who)
    assert not hasattr(who, "token")
    assert repr(who) == "Identity(subject='alice', client_id='cli', scopes=['mcp:tools'])"


def test_an_mcp_access_token_becomes_an_identity() -> None:
    from mcp.server.auth.provider import AccessToken

    token = AccessToken(
        token="t",
        client_id="c",
        scopes=["s1", "s2"],
        expires_at=2_000_000_000,
        resource="https://api.example.com/mcp",
        subject="alice",
        claims={"tenant": "acme"},
    )
    who = Identity.from_token_info(token)
    assert who == Identity(
        "alice",
        client_id="c",
        scopes=["s1", "s2"],
        expires_at=2_000_000_000,
        resource="https://api.example.com/mcp",
    )
    assert who.claims["tenant"] == "acme"


def test_bad_identity_fields_name_the_field() -> None:
    with pytest.raises(TypeError, match="Identity subject must be a string"):
        Identity(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expires_at must be seconds"):
        Identity(expires_at="tomorrow")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got int"):
        Identity.from_token_info(5)


def test_scope_refusal_names_the_tool_and_scopes() -> None:
    assert scope_refusal("deploy", ["files:write"]) == (
        "Tool 'deploy' requires scope files:write; the access token does not grant it"
    )
    assert scope_refusal(None, ["b", "a"]) == (
        "This server requires scopes a b; the access token does not grant them"
    )


async def test_every_verifier_shape_is_accepted() -> None:
    from mcp.server.auth.provider import AccessToken

    async def async_fn(token: str) -> Identity | None:
        return Identity("a") if token == "ok" else None

    def sync_fn(token: str) -> Identity | None:
        return Identity("s") if token == "ok" else None

    class McpVerifier:
        async def verify_token(self, token: str) -> AccessToken | None:
            if token != "ok":
                return None
            return AccessToken(token=token, client_id="m", scopes=["x"])

    for verifier, expected in (
        (async_fn, Identity("a")),
        (sync_fn, Identity("s")),
        (McpVerifier(), Identity(client_id="m", scopes=["x"])),
    ):
        auth = bearer_auth(verifier)
        assert auth is not None
        assert await auth.verify("ok") == expected
        assert await auth.verify("nope") is None


async def test_a_verifier_that_raises_refuses_the_token_without_logging_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(token: str) -> Identity:
        raise ValueError(f"cannot decode {token}")

    auth = BearerAuth(broken)
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        assert await auth.verify("tok-SECRET") is None
    assert "raised ValueError" in caplog.text
    assert "SECRET" not in caplog.text


async def test_a_verifier_returning_junk_is_refused_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    auth = BearerAuth(lambda token: "yes")
    with caplog.at_level(logging.ERROR, logger="toolwire"):
        assert await auth.verify("t") is None
    assert "must return a toolwire.Identity" in caplog.text


async def test_a_verifier_naming_no_caller_is_refused_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Sessions are bound to (subject, client_id); two tokens that both name nobody would
    # otherwise count as one caller and could use each other's sessions.
    tokens = {"first": Identity(scopes=["x"]), "second": Identity(scopes=["y"])}
    auth = BearerAuth(tokens.get)
    with caplog.at_level(logging.ERROR, logger="toolwire"):
        assert await auth.verify("first") is None
        assert await auth.verify("second") is None
    assert "neither a subject nor a client_id" in caplog.text
    assert await BearerAuth(lambda token: Identity(client_id="c")).verify("t") == Identity(
        client_id="c"
    )


def test_bearer_auth_options_are_checked() -> None:
    async def verify(token: str) -> None:
        return None

    with pytest.raises(TypeError, match=r"auth= takes a toolwire\.BearerAuth"):
        Server("s", auth=42)
    with pytest.raises(ValueError, match="not an absolute http"):
        BearerAuth(verify, authorization_servers=["auth.example.com"])
    with pytest.raises(ValueError, match="resource_url"):
        BearerAuth(verify, resource_url="/mcp")
    auth = BearerAuth(verify, authorization_servers="https://auth.example.com")
    assert auth.authorization_servers == ("https://auth.example.com",)
    server = Server("s", auth=verify)
    assert isinstance(server.auth, BearerAuth)
    assert Server("s").auth is None


def test_tool_scopes_are_checked_when_the_tool_is_published() -> None:
    server = Server("s")

    @server.tool(scopes="files:read files:write")
    def read(path: str) -> str:
        return path

    server.add_tool(lambda: "x", name="other", scopes=["admin"])
    assert server.tools["read"].scopes == {"files:read", "files:write"}
    assert server.tools["other"].scopes == {"admin"}
    assert server.tool_registry.all_scopes() == {"files:read", "files:write", "admin"}
    assert server.tool_registry.scoped == 2
    server.remove_tool("other")
    assert server.tool_registry.all_scopes() == {"files:read", "files:write"}
    with pytest.raises(ValueError, match="scopes of tool 'bad'"):
        server.add_tool(lambda: 1, name="bad", scopes=[""])
    unused: Any = server
    assert unused.tool_registry.scoped == 1


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (
            {"resource_url": "https://api.example.com:99999/mcp"},
            "resource_url: 'https://api.example.com:99999/mcp' has a port that is not a number "
            "up to 65535",
        ),
        (
            {"resource_url": "https://api.example.com:http/mcp"},
            "resource_url: 'https://api.example.com:http/mcp' has a port that is not a number "
            "up to 65535",
        ),
        (
            {"authorization_servers": ["https://auth.example.com:0x50"]},
            "authorization_servers: 'https://auth.example.com:0x50' has a port that is not a "
            "number up to 65535",
        ),
        (
            {"resource_url": "https://api.example.com/mcp#part"},
            "resource_url: 'https://api.example.com/mcp#part' has a fragment; a resource "
            "identifier has none (RFC 8707)",
        ),
        ({"resource_url": "https://:8000/mcp"}, "is not an absolute http(s) URL"),
        (
            {"resource_url": "https://api.example\n.com/mcp"},
            "resource_url: 'https://api.example\\n.com/mcp' holds a control character",
        ),
        (
            {"authorization_servers": ["https://auth.example.com/\t"]},
            "authorization_servers: 'https://auth.example.com/\\t' holds a control character",
        ),
    ],
)
def test_a_url_no_token_could_ever_match_is_refused_at_once(
    options: dict[str, Any], problem: str
) -> None:
    # A resource_url with a port out of range was taken, and then every token naming a
    # resource was refused as "issued for another resource", naming nothing.
    async def verify(token: str) -> None:
        return None

    with pytest.raises(ValueError) as refused:
        BearerAuth(verify, **options)
    assert problem in str(refused.value)


@pytest.mark.parametrize("servers", [8080, 1.5, True])
def test_authorization_servers_that_are_not_a_list_are_refused_by_name(servers: Any) -> None:
    """Not a bare "'int' object is not iterable"."""

    async def verify(token: str) -> None:
        return None

    with pytest.raises(TypeError) as refused:
        BearerAuth(verify, authorization_servers=servers)
    assert str(refused.value) == (
        f"authorization_servers must be a list of URL strings, not {type(servers).__name__}"
    )
