"""`Server`'s prompt and completion API: `@server.prompt`, `add_prompt`, `remove_prompt`,
`@server.completion`. A base class of `Server`, so that server.py stays about tools.

What a prompt function may return, and how its arguments arrive, is described in
`protocol/prompt_messages.py` and `protocol/prompt_registry.py`; how completion picks a
completer in `protocol/completion.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from ._announcer import Announcer
    from .protocol.app import OpenSession
    from .protocol.prompt_registry import PromptRegistry

__all__ = ["PromptApi"]

F = TypeVar("F", bound=Callable[..., Any])


class PromptApi:
    """Prompts and completion for a server (mixed into `Server`)."""

    completion_handler: Callable[..., Any] | None = None
    _prompt_registry: PromptRegistry | None = None
    _announcer: Announcer  # the server's open sessions (set by `Server.__init__`)

    @property
    def prompt_registry(self) -> PromptRegistry:
        """The published prompts, as sessions serve them (see `protocol.app.ServedApp`)."""
        registry = self._prompt_registry
        if registry is None:  # made on first use: a server without prompts never loads them
            from .protocol.prompt_registry import PromptRegistry

            registry = self._prompt_registry = PromptRegistry()
            registry.listeners.append(self._prompts_changed)
        return registry

    @property
    def prompts(self) -> Mapping[str, Any]:
        """The published prompts by name (read-only)."""
        return self.prompt_registry

    def _prompts_changed(self) -> None:
        """Tell connected clients the prompt list changed."""
        self._announcer.tell(_prompts_changed)

    @overload
    def prompt(self, func: F, /) -> F: ...

    @overload
    def prompt(
        self,
        func: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        completers: Mapping[str, Any] | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        func: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        completers: Mapping[str, Any] | None = None,
    ) -> F | Callable[[F], F]:
        """Publish a function as a prompt; works bare (`@server.prompt`) or with options.

        The function's parameters are the prompt's arguments (a parameter without a
        default is required; the docstring's `Args:` describe them). It returns a string,
        a `toolwire.PromptMessage`, or a list of them (see `toolwire.PromptMessage` for
        the content a message may hold); it may be async. A first parameter annotated
        `ToolContext` receives the request's context instead (for `ctx.elicit`).

        Args:
            func: The function (when used bare).
            name: The prompt's name (default: the function's name).
            title: A human-readable name shown by clients.
            description: What the prompt is for (default: from the docstring).
            icons: Pictures for clients to show (`toolwire.Icon`s or dicts; 2025-11-25).
            meta: `_meta` sent with the prompt listing.
            completers: Argument name -> completer, for `completion/complete`: a list of
                choices (suggested by prefix) or a function `(value, context_arguments)`
                returning suggestions, sync or async.

        Returns:
            The function itself, unchanged.

        Raises:
            UserError: A prompt of that name exists, the function cannot be a prompt, or
                an option is malformed (the message names which).
        """

        def register(the_func: F) -> F:
            self.add_prompt(
                the_func,
                name=name,
                title=title,
                description=description,
                icons=icons,
                meta=meta,
                completers=completers,
            )
            return the_func

        if func is not None:
            return register(func)
        return register

    def add_prompt(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        completers: Mapping[str, Any] | None = None,
    ) -> None:
        """Publish a function as a prompt (the options of `prompt`); connected clients are
        told, as for tools.

        Raises:
            UserError: As for `prompt`.
        """
        from .protocol.prompt_registry import registered_prompt

        entry = registered_prompt(
            func,
            name=name,
            title=title,
            description=description,
            icons=icons,
            meta=meta,
            completers=completers,
        )
        self.prompt_registry.add(entry)

    def remove_prompt(self, name: str) -> None:
        """Stop publishing a prompt; connected clients are told.

        Raises:
            KeyError: No prompt has that name.
        """
        self.prompt_registry.remove(name)

    def completion(self, func: F, /) -> F:
        """Use `func` for `completion/complete` requests no declared completer answers.

        `func(ref, argument, value, context_arguments)` (sync or async) gets the request's
        `ref` as sent (`{"type": "ref/prompt", "name": ...}` or `{"type": "ref/resource",
        "uri": ...}`), the argument's name, what was typed so far, and the arguments the
        client already settled; it returns suggestions (an iterable of strings) or None.

        Returns:
            The function itself, unchanged.
        """
        if not callable(func):
            from .errors import UserError

            raise UserError(f"completion handler must be a function, not {type(func).__name__}")
        self.completion_handler = func
        return func


async def _prompts_changed(session: OpenSession) -> None:
    await session.prompts_changed()
