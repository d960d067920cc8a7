"""What strict conversion says when it refuses a schema.

The texts are the Agents SDK's, word for word: they reach tool authors (and sometimes models)
and the differential suite compares them, so a rewording would be a behaviour change. The
`$ref` failures keep the SDK's exception types too (KeyError, AssertionError, ValueError).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UserError
from .refs import RefError

ADDITIONAL_PROPERTIES = (
    "additionalProperties should not be set for object types. This could be because "
    "you're using an older version of Pydantic, or because you configured additional "
    "properties to be allowed. If you really need this, update the function or output tool "
    "to not use a strict schema."
)
OPEN_OBJECT = (
    "JSON schema contains an object that permits undeclared properties and cannot be converted "
    "to a strict schema without changing its accepted values."
)
UNVALIDATED_REF = "JSON schema contains a reference whose target was not validated for strict mode."
NESTED_RESOURCE_REF = (
    "JSON schema contains a reference owned by or crossing a nested `$id` resource that cannot "
    "be resolved against the document root."
)
TOO_DEEP = "JSON schema is too deeply nested to process safely. Simplify or flatten the schema."
TOO_LARGE = (
    "JSON schema is too large to convert to a strict schema. This can happen when a "
    "schema expands `$ref`s exponentially, which may indicate a malformed or malicious "
    "schema."
)
CIRCULAR_CHAIN = "JSON schema contains a circular `$ref` chain."
ROOT_ANY_OF = "The root of a strict JSON schema must not use `anyOf`."


def root_not_plain_object(declared_type: object) -> UserError:
    """The root's `type` is a list that allows something besides an object."""
    return UserError(
        "The root of a strict JSON schema must be a non-nullable object, but its type is "
        f"{declared_type}. Make the root a plain object, or update the function or output tool to "
        "not use a strict schema."
    )


def ref_siblings_conflict(keywords: Iterable[str]) -> UserError:
    """A `$ref` sits beside keywords that would narrow its target (merging would change it)."""
    return UserError(
        "JSON schema contains a `$ref` with incompatible sibling keyword(s) "
        f"({', '.join(sorted(keywords))}) that cannot be merged "
        "without changing its accepted values."
    )


def all_of_conflict(keywords: Iterable[str]) -> UserError:
    """A one-entry `allOf` disagrees with its parent on a keyword that constrains values."""
    return UserError(
        "JSON schema contains a singleton `allOf` entry with incompatible parent "
        f"keyword(s) ({', '.join(sorted(keywords))}) that cannot be merged "
        "without changing its accepted values."
    )


def not_a_schema(value: object, path: tuple[str, ...]) -> TypeError:
    """A place that must hold a sub-schema holds something else."""
    return TypeError(f"Expected {value} to be a dictionary; path={path}")


def bad_ref_format(ref: object) -> ValueError:
    """Strict conversion only inlines `#/...` pointers (not `#`, not other documents)."""
    return ValueError(f"Unexpected $ref format {ref!r}; Does not start with #/")


def non_string_ref(ref: object) -> AssertionError:
    """A `$ref` whose value is not a string cannot be inlined."""
    return AssertionError(f"Received non-string $ref - {ref}")


def stepped_into_non_object(ref: object, container: object) -> AssertionError:
    """A pointer segment named something other than an object (`container` held it)."""
    return AssertionError(f"encountered non-dictionary entry while resolving {ref} - {container}")


def target_not_object(ref: object, target: object) -> ValueError:
    """A followed reference ended on something other than a schema object."""
    return ValueError(f"Expected `$ref: {ref}` to resolve to a dictionary but got {target}")


def from_ref_error(error: RefError) -> BaseException:
    """The exception the SDK raises for the same unresolvable pointer."""
    if error.reason == "encoding" and error.__cause__ is not None:
        return error.__cause__  # the UnicodeDecodeError itself, as the SDK lets it through
    if error.reason == "missing":
        return KeyError(error.token)
    if error.reason == "not-container":
        return stepped_into_non_object(error.ref, error.container)
    return bad_ref_format(error.ref)
