"""What a resource's listing says: the docstring's summary only, and icons checked as a
tool's and a prompt's are."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolwire import UserError
from toolwire.server import Server

from ..harness import handshake

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _documented() -> Server:
    server = Server("docs")

    @server.resource("items://{id}/google")
    def google(id: int) -> str:
        """One item, by id.

        Args:
            id: Which item.
        """
        return str(id)

    @server.resource("items://{id}/numpy")
    def numpy(id: int) -> str:
        """One item, numpy style.

        Parameters
        ----------
        id : int
            Which item.
        """
        return str(id)

    @server.resource("items://{id}/sphinx")
    def sphinx(id: int) -> str:
        """One item, sphinx style.

        :param id: Which item.
        """
        return str(id)

    @server.resource("items://all")
    def everything() -> str:
        """Every item.

        Returns:
            The items, one per line.
        """
        return ""

    @server.resource("items://plain", description="Given as is.\n\nArgs:\n    kept: yes")
    def plain() -> str:
        """Not used: the description given wins."""
        return ""

    return server


async def test_a_listed_description_is_the_docstrings_summary() -> None:
    async with handshake(_documented()) as peer:
        templates = (await peer.request(1, "resources/templates/list"))["result"]
        resources = (await peer.request(2, "resources/list"))["result"]
    described = {t["uriTemplate"]: t.get("description") for t in templates["resourceTemplates"]}
    assert described == {
        "items://{id}/google": "One item, by id.",
        "items://{id}/numpy": "One item, numpy style.",
        "items://{id}/sphinx": "One item, sphinx style.",
    }
    fixed = {r["uri"]: r.get("description") for r in resources["resources"]}
    assert fixed == {
        "items://all": "Every item.",
        "items://plain": "Given as is.\n\nArgs:\n    kept: yes",
    }


async def test_resource_icons_are_normalized_like_a_prompts() -> None:
    from toolwire import Icon

    server = Server("icons")
    server.add_resource(
        "icons://a", "a", icons=[Icon(src="https://example.com/a.png", sizes=["16x16"])]
    )
    async with handshake(server) as peer:
        listed = (await peer.request(1, "resources/list"))["result"]["resources"]
    assert listed[0]["icons"] == [{"src": "https://example.com/a.png", "sizes": ["16x16"]}]


@pytest.mark.parametrize(
    ("icons", "problem"),
    [
        ({"src": "https://example.com/a.png"}, "must be a list of icons"),
        ([{"mimeType": "image/png"}], "src"),
        ([{"src": "javascript:alert(1)"}], "javascript"),
    ],
)
def test_malformed_resource_icons_are_refused_naming_the_resource(icons: Any, problem: str) -> None:
    server = Server("icons")
    with pytest.raises(UserError, match="resource 'icons://a'") as raised:
        server.add_resource("icons://a", "a", icons=icons)
    assert problem in str(raised.value)
    with pytest.raises(UserError, match=re.escape("resource template 'icons://{x}'")):

        @server.resource("icons://{x}", icons=icons)
        def templated(x: str) -> str:
            return x
