"""The MCP server: `apply_patch` (a Codex envelope) and `apply_patch_operations` (the SDK's
operation list), both atomic, confined to the roots, and able to dry-run.

Each call is parsed, matched and planned in memory under the patch's bounds, then written
with `commit` (all files or none). Calls run one at a time, so two patches never interleave
their writes. A failed patch answers with an `isError` result whose text is the
`PatchError`'s: what failed, where, and that nothing changed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from toolwire import Server
from toolwire.paths import Roots

from .diffs import unified
from .errors import LimitError, PatchError
from .formats import from_envelope, from_operations
from .match import Deadline
from .plan import Limits, Operation, Plan, plan
from .report import NOTHING_CHANGED
from .workspace import RootsWorkspace, commit

__all__ = ["PatchOperation", "Patcher", "build_server"]

logger = logging.getLogger("toolwire.patch")

_ENVELOPE_HELP = """Apply a patch to files under the server's root directories, atomically: every
file changes or none does.

The patch is one text:
*** Begin Patch
*** Add File: path/new.py
+each line of the new file, prefixed with +
*** Delete File: path/old.py
*** Update File: path/app.py
*** Move to: path/renamed.py        (optional)
@@ def handler():                   (optional: a line that comes before the change)
 context line (space prefix)
-removed line
+added line
*** End of File                     (optional: the hunk ends at the end of the file)
*** End Patch

Paths are relative to the root. Give about 3 lines of context around each change; if that
context occurs more than once, add an @@ line naming the class or function. Hunks of a file
come in file order. With dry_run the unified diffs are returned and nothing is written."""

_OPERATIONS_HELP = """Apply file operations in V4A diff form under the server's root
directories, atomically: every operation takes effect or none does.

Each operation is {type, path, diff, move_to?}:
- create_file: diff holds the new file's lines, each prefixed with "+".
- update_file: diff holds hunks, each opened by "@@" or "@@ <a line before the change>",
  with lines prefixed " " (context), "-" (removed) or "+" (added); "*** End of File" ends a
  hunk at the end of the file. move_to renames the file.
- delete_file: no diff.
With dry_run the unified diffs are returned and nothing is written."""


class PatchOperation(BaseModel):
    """One file operation, as the Agents SDK's `apply_patch_call` carries it."""

    type: Literal["create_file", "update_file", "delete_file"] = Field(
        description="What to do with the file."
    )
    path: str = Field(description="The file, relative to the root.")
    diff: str | None = Field(
        default=None, description="The V4A diff (create_file and update_file)."
    )
    move_to: str | None = Field(default=None, description="update_file only: the new name.")


def _patch_errors(_context: Any, error: Exception) -> str:
    if isinstance(error, PatchError):
        return error.message
    logger.error("apply_patch failed unexpectedly", exc_info=error)
    return f"apply_patch failed unexpectedly ({type(error).__name__}). {NOTHING_CHANGED}"


class Patcher:
    """Applies patches to files under a set of roots: the server's tools without MCP.

    Args:
        roots: The directories patches may touch (paths, or a `toolwire.paths.Roots`).
        limits: The bounds of one patch (default `Limits()`).
    """

    def __init__(self, roots: Sequence[str] | Roots, limits: Limits | None = None) -> None:
        self.roots = roots if isinstance(roots, Roots) else Roots(list(roots))
        self.workspace = RootsWorkspace(self.roots)
        self.limits = limits or Limits()
        self._lock = threading.Lock()

    def _check_size(self, size: int) -> None:
        if size > self.limits.max_patch_bytes:
            raise LimitError(
                f"the patch is {size:,} bytes, over the server's limit of "
                f"{self.limits.max_patch_bytes:,} bytes (--max-patch-bytes). Split it into "
                f"smaller patches. {NOTHING_CHANGED}"
            )

    def _run(self, build: Callable[[], list[Operation]], dry_run: bool) -> Plan | str:
        with self._lock:
            deadline = Deadline(self.limits.max_seconds)
            result = plan(build(), self.workspace, self.limits, deadline)
            if dry_run:
                diff = unified(result.changes)
                return "Dry run: nothing was written. The patch would make these changes:\n" + (
                    diff or "(no change)"
                )
            commit(result.changes, self.workspace)
            return result

    def apply_envelope(self, patch: str, *, dry_run: bool = False) -> str:
        """Apply a Codex patch; returns Codex's summary ("Success. Updated the following
        files:" and one "A/M/D path" line each), or the diffs of a dry run.

        Raises:
            PatchError: The patch cannot be applied; nothing was written.
        """
        self._check_size(len(patch.encode("utf-8", errors="replace")))
        done = self._run(lambda: from_envelope(patch), dry_run)
        if isinstance(done, str):
            return done
        return "Success. Updated the following files:\n" + "\n".join(done.letters)

    def apply_operations(
        self, operations: Sequence[Mapping[str, Any]], *, dry_run: bool = False
    ) -> str:
        """Apply the SDK's operations; returns one line per operation ("Created x",
        "Updated x", "Deleted x", "Moved x to y"), or the diffs of a dry run.

        Raises:
            PatchError: The operations cannot be applied; nothing was written.
        """
        size = sum(
            len(str(operation.get("diff") or "").encode("utf-8", errors="replace"))
            for operation in operations
            if isinstance(operation, Mapping)
        )
        self._check_size(size)
        done = self._run(lambda: from_operations(operations), dry_run)
        if isinstance(done, str):
            return done
        return "\n".join(done.done)


def build_server(
    roots: Sequence[str] | Roots, limits: Limits | None = None, *, name: str = "toolwire-patch"
) -> Server:
    """An apply_patch server confined to `roots`.

    Args:
        roots: The directories patches may touch (paths, or a `toolwire.paths.Roots`).
        limits: The bounds of one patch (default `Limits()`).
        name: The server's name.
    """
    patcher = Patcher(roots, limits)
    limits, all_roots = patcher.limits, patcher.roots
    server = Server(
        name,
        version="0.1.0",
        instructions=(
            "Edits files under "
            + ", ".join(all_roots.paths)
            + " with patches. apply_patch takes a Codex '*** Begin Patch' envelope; "
            "apply_patch_operations takes the Agents SDK's create/update/delete operations."
        ),
        max_message_bytes=max(4 * 1024 * 1024, 3 * limits.max_patch_bytes),
    )
    hints = {"destructiveHint": True, "idempotentHint": False, "openWorldHint": False}

    @server.tool(
        name="apply_patch",
        description=_ENVELOPE_HELP,
        annotations=hints,
        failure_error_function=_patch_errors,
        strict_mode=False,
    )
    def apply_patch(input: str, dry_run: bool = False) -> str:
        """Apply a Codex patch.

        Args:
            input: The whole patch, from "*** Begin Patch" to "*** End Patch".
            dry_run: Return the unified diffs and write nothing.
        """
        return patcher.apply_envelope(input, dry_run=dry_run)

    @server.tool(
        name="apply_patch_operations",
        description=_OPERATIONS_HELP,
        annotations=hints,
        failure_error_function=_patch_errors,
        strict_mode=False,
    )
    def apply_patch_operations(operations: list[PatchOperation], dry_run: bool = False) -> str:
        """Apply the Agents SDK's file operations.

        Args:
            operations: The operations, applied in order, all or none.
            dry_run: Return the unified diffs and write nothing.
        """
        return patcher.apply_operations(
            [operation.model_dump() for operation in operations], dry_run=dry_run
        )

    return server
