"""The one error a patch fails with: a message written for the model that sent the patch."""

from __future__ import annotations

__all__ = ["LimitError", "PatchError"]


class PatchError(Exception):
    """A patch that cannot be applied; its text says what, where, and that nothing changed.

    Attributes:
        message: The full text shown to the model.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class LimitError(PatchError):
    """A patch over one of the server's bounds (size, file count, time); the text names it."""
