"""A server with bearer auth and a scoped tool, for the CLI process tests (`toolwire run`)."""

from typing import Any

from toolwire import BearerAuth, CallInfo, Identity, Server, ToolContext

TOKENS = {"alice": Identity("alice", client_id="app", scopes=["mcp:tools"])}


async def verify(token: str) -> Identity | None:
    return TOKENS.get(token)


def whose(info: CallInfo) -> Any:
    return info.identity


server = Server(
    "secured",
    auth=BearerAuth(verify, authorization_servers=["https://auth.example.com"]),
    context_factory=whose,
)


@server.tool
def whoami(ctx: ToolContext[Identity]) -> str:
    """Who is calling."""
    return str(ctx.context.subject)


@server.tool(scopes=["deploy"])
def deploy() -> str:
    """Needs the deploy scope."""
    return "deployed"
