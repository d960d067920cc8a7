"""URI templates: what parses, what is refused (naming the template), how URIs match."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.protocol.features.uri_template import UriTemplate


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "must be a non-empty string"),
        ("x://{id", "'{' at offset 4 is never closed"),
        ("x://id}", "'}' at offset 6 closes nothing"),
        ("x://{a{b}}", "'{' at offset 4 is never closed"),
        ("x://{}", "'' is not a valid parameter name"),
        ("x://{1abc}", "'1abc' is not a valid parameter name"),
        ("x://{a-b}", "'a-b' is not a valid parameter name"),
        ("x://{a}/{a}", "parameter 'a' appears twice"),
        ("x://{a}{b}", "two expressions need literal text between them"),
        ("x://{a,b}", "names several variables"),
        ("x://{#frag}", "operator '#' in '{#frag}' is not supported"),
        ("x://{/seg}", "operator '/' in '{/seg}' is not supported"),
        ("x://{.ext}", "operator '.' in '{.ext}' is not supported"),
        ("x://{;p}", "operator ';' in '{;p}' is not supported"),
        ("x://{&q}", "operator '&' in '{&q}' is not supported"),
        ("x://{list*}", "value modifiers ('list*') are not supported"),
        ("x://{name:3}", "value modifiers ('name:3') are not supported"),
        ("x://{?q}/more", "'{?...}' must end the template"),
        ("x://{?q,q}", "parameter 'q' appears twice"),
        ("x://{a}?{?q}", None),  # fine: a literal '?' before the query expression
    ],
)
def test_malformed_templates_are_refused_naming_the_template(
    text: str, problem: str | None
) -> None:
    if problem is None:
        UriTemplate.parse(text)
        return
    with pytest.raises(ValueError) as refused:
        UriTemplate.parse(text)
    message = str(refused.value)
    assert problem in message
    if text:
        assert f"invalid resource URI template {text!r}" in message


def test_a_fixed_uri_is_a_template_without_variables() -> None:
    fixed = UriTemplate.parse("test://static-text")
    assert not fixed.is_template and fixed.variables == ()
    assert fixed.match("test://static-text") == {}
    assert fixed.match("test://static-text2") is None
    assert fixed.match("test://static") is None
    # regex metacharacters in literal text are literal
    dotted = UriTemplate.parse("a.b://x+y/(z)")
    assert dotted.match("a.b://x+y/(z)") == {}
    assert dotted.match("aXb://xxy/z") is None


def test_simple_variables_match_one_segment_and_are_decoded() -> None:
    template = UriTemplate.parse("test://template/{id}/data")
    assert template.variables == ("id",)
    assert template.match("test://template/123/data") == {"id": "123"}
    assert template.match("test://template/a%20b/data") == {"id": "a b"}
    assert template.match("test://template/5%2F6/data") == {"id": "5/6"}  # decoded once
    assert template.match("test://template/%252e/data") == {"id": "%2e"}  # not twice
    assert template.match("test://template/a/b/data") is None
    assert template.match("test://template//data") is None  # empty values do not match
    assert template.match("test://template/1/data/") is None
    assert template.match("test://template/%ff/data") is None  # not UTF-8
    assert template.match("test://template/1/data\n") is None


def test_reserved_variables_span_segments() -> None:
    template = UriTemplate.parse("file:///docs/{+path}")
    assert template.match("file:///docs/a/b/c.md") == {"path": "a/b/c.md"}
    assert template.match("file:///docs/") is None
    assert template.match("file:///docs/a?x=1") is None
    assert template.match("file:///other/a") is None


def test_query_variables_are_optional_in_any_order_and_no_others() -> None:
    template = UriTemplate.parse("search://{index}{?q,limit}")
    assert template.variables == ("index", "q", "limit")
    assert template.match("search://books") == {"index": "books"}
    assert template.match("search://books?") == {"index": "books"}
    assert template.match("search://books?limit=5&q=a%20b") == {
        "index": "books",
        "limit": "5",
        "q": "a b",
    }
    assert template.match("search://books?other=1") is None
    assert template.match("search://books?q=1&q=2") is None
    assert template.match("search://books?q") is None


def test_expand_encodes_what_match_decodes() -> None:
    simple = UriTemplate.parse("u://{name}/x")
    assert simple.expand({"name": "a/b c"}) == "u://a%2Fb%20c/x"
    reserved = UriTemplate.parse("file:///d/{+path}")
    assert reserved.expand({"path": "a/b c?#%"}) == "file:///d/a/b%20c%3F%23%25"
    query = UriTemplate.parse("s://{i}{?q,n}")
    assert query.expand({"i": "x", "n": "1"}) == "s://x?n=1"


@settings(max_examples=300, deadline=None)
@given(
    st.text(min_size=1, max_size=30),
    st.lists(st.text(min_size=1, max_size=10), min_size=1, max_size=4),
)
def test_expand_then_match_gives_the_values_back(name: str, segments: list[str]) -> None:
    simple = UriTemplate.parse("u://{name}/x")
    assert simple.match(simple.expand({"name": name})) == {"name": name}
    reserved = UriTemplate.parse("file:///d/{+path}")
    path = "/".join(segments)
    uri = reserved.expand({"path": path})
    assert reserved.match(uri) == {"path": path}


def _backtracking_oracle(template: UriTemplate) -> re.Pattern[str]:
    """The regular expression templates used to be matched with: exact, but a failing match
    tried every split of the URI between its `{+...}` variables."""
    pattern = "".join(
        re.escape(part)
        if isinstance(part, str)
        else f"(?P<{part.name}>{'[^?#]+' if part.reserved else '[^/?#]+'})"
        for part in template.parts
    )
    if template.query:
        pattern += r"(?:\?(?P<_query_>[^#]*))?"
    return re.compile(pattern + r"\Z", re.DOTALL)


def _oracle_match(template: UriTemplate, uri: str) -> dict[str, str] | None:
    found = _backtracking_oracle(template).match(uri)
    if found is None:
        return None
    try:
        values = {
            part.name: unquote(found.group(part.name), errors="strict")
            for part in template.parts
            if not isinstance(part, str)
        }
        raw = found.group("_query_") if template.query else None
        for pair in raw.split("&") if raw else ():
            key, sep, value = pair.partition("=")
            if not sep or key not in template.query or key in values:
                return None
            values[key] = unquote(value, errors="strict")
    except UnicodeDecodeError:
        return None
    return values


TEMPLATES = [
    "x://{+a}/{+b}/{+c}",
    "x://{+a}/{b}/{+c}.json",
    "x://{a}/{+b}{?q,n}",
    "x://s?q={a}&r={+b}",
    "x://{+a}#{b}",
    "x://{+a}//{+b}",
    "file:///d/{+path}",
    "x://{a}-{b}.{c}",
    "x://fixed/path",
]


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(TEMPLATES),
    st.text(alphabet="x:/ab.-?#&=%2Fqn", max_size=24),
)
def test_matches_are_the_backtracking_regexs_exactly(text: str, tail: str) -> None:
    template = UriTemplate.parse(text)
    for uri in (tail, "x://" + tail, "x://s?q=" + tail, "file:///d/" + tail):
        assert template.match(uri) == _oracle_match(template, uri), uri


@pytest.mark.parametrize(
    ("text", "uri"),
    [
        ("x://{+a}/{+b}/{+c}", "x://" + "/" * 20_000 + "#"),
        ("x://{+a}/{+b}/{c}.json", "x://" + "/" * 20_000 + "/.json"),
        ("x://{+a}/{+b}/{+c}/{+d}", "x://" + "a/" * 10_000 + "?"),
    ],
)
def test_a_hostile_uri_does_not_make_matching_explode(text: str, uri: str) -> None:
    """With three `{+...}` variables a failing 2,000-character URI took the regex 72 seconds
    of CPU, on the event loop, so one request stalled the server; at 20,000 characters it
    would not end before the suite's timeout. The matcher sweeps the URI once per part."""
    assert UriTemplate.parse(text).match(uri) is None
