"""The one error a patch fails with: a message written for the model that sent the patch."""

from __future__ import annotations

__all__ = ["NOTHING_CHANGED", "LimitError", "PatchError"]

# How every error text ends: the model may retry, and needs to know there is nothing to undo.
NOTHING_CHANGED = "Nothing was changed: fix the patch and send it again."


class PatchError(Exception):
    """A patch that cannot be applied; its text says what, where, and that nothing changed.

    `message` is the full text for the model, which quotes the patch and the file; `str()`
    gives only its first line (clipped), so logs of failed calls do not copy file contents.

    Attributes:
        message: The full text shown to the model.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        first = self.message.split("\n", 1)[0]
        return first if len(first) <= 120 else first[:120] + "…"


class LimitError(PatchError):
    """A patch over one of the server's bounds (size, file count, time); the text names it."""
