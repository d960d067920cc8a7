"""The JSON schemas of the tools' structured results (and of edit_file's `edits`), written out
so that starting the server builds no models. Every result keeps the reference server's
`content` (text, or for read_media_file its list of content blocks) and adds typed fields."""

from __future__ import annotations

from typing import Any

__all__ = ["EDITS", "OUTPUTS", "PARAMS"]

_STR = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}


def _maybe(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _said(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description}


def _object(**properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": _STR, "description": description}


_NOTE = _said(_maybe(_STR), "What a bound left out, if anything.")
_CUT = _said(_BOOL, "Whether a bound (size, entries, depth, results, time) cut the result short.")
_DONE = _object(
    content=_said(_STR, "A sentence saying what was done."),
    path=_said(_STR, "The real absolute path changed."),
)
_KIND = {"type": "string", "enum": ["file", "directory", "symlink", "other"]}
_LISTING = _object(
    content=_said(_STR, "The entries, one per line, [DIR] or [FILE] first."),
    path=_STR,
    entries={
        "type": "array",
        "items": _object(name=_STR, type=_KIND, size=_maybe(_INT), modified=_maybe(_STR)),
    },
    truncated=_CUT,
)

_BLOB = {  # an embedded resource's contents; the reference server leaves mimeType optional
    "type": "object",
    "properties": {"uri": _STR, "mimeType": _STR, "blob": _STR},
    "required": ["uri", "blob"],
    "additionalProperties": False,
}
_MEDIA_BLOCK = {
    "anyOf": [
        _object(type={"type": "string", "enum": ["image", "audio"]}, data=_STR, mimeType=_STR),
        _object(type={"type": "string", "const": "resource"}, resource=_BLOB),
    ]
}

OUTPUTS: dict[str, dict[str, Any]] = {
    "read_media_file": _object(
        content=_said(
            {"type": "array", "items": _MEDIA_BLOCK},
            "The file as one content block: image or audio data, or an embedded resource.",
        )
    ),
    "read_text_file": _object(
        content=_said(_STR, "The text read."),
        path=_said(_STR, "The file's real absolute path."),
        startLine=_said(
            _maybe(_INT),
            "The line number of the first line returned (1-based); null for a tail of a file "
            "too large to read whole, whose earlier lines were not counted.",
        ),
        lineCount=_said(_INT, "How many lines were returned."),
        totalLines=_said(_maybe(_INT), "The file's line count, when it was read whole."),
        truncated=_CUT,
        sha256=_said(_maybe(_STR), "SHA-256 of the whole file (edit_file's expectedHash)."),
        note=_NOTE,
    ),
    "read_multiple_files": _object(
        content=_said(_STR, "All files, each headed by its path, separated by ---."),
        files={
            "type": "array",
            "items": _object(path=_STR, content=_maybe(_STR), error=_maybe(_STR), truncated=_BOOL),
        },
    ),
    "write_file": _DONE,
    "append_file": _DONE,
    "create_directory": _DONE,
    "move_file": _DONE,
    "copy_file": _DONE,
    "edit_file": _object(
        content=_said(_STR, "The unified diff of the change, fenced for Markdown."),
        path=_STR,
        applied=_said(_BOOL, "False for a dry run: nothing was written."),
        sha256=_said(_STR, "SHA-256 of the file after the edit (or as it would be)."),
    ),
    "list_directory": _LISTING,
    "list_directory_with_sizes": _LISTING,
    "directory_tree": _object(
        content=_said(_STR, "The tree: a JSON list of {name, type, children}."),
        path=_STR,
        entries=_said(_INT, "How many entries the tree holds."),
        truncated=_CUT,
        note=_NOTE,
    ),
    "search_files": _object(
        content=_said(_STR, "The matching paths, one per line."),
        matches=_strings("The matching paths."),
        truncated=_CUT,
        note=_NOTE,
    ),
    "search_file_contents": _object(
        content=_said(_STR, "path:line: text, one match per line."),
        matches={"type": "array", "items": _object(path=_STR, line=_INT, text=_STR)},
        filesSearched=_INT,
        filesSkipped=_said(_INT, "Binary, too large or unreadable files skipped."),
        truncated=_CUT,
        note=_NOTE,
    ),
    "get_file_info": _object(
        content=_said(_STR, "key: value lines, as the reference server writes them."),
        path=_STR,
        type=_KIND,
        size=_INT,
        created=_maybe(_STR),
        modified=_STR,
        accessed=_STR,
        isDirectory=_BOOL,
        isFile=_BOOL,
        permissions=_STR,
    ),
    "list_allowed_directories": _object(
        content=_STR,
        directories=_strings("The directories this call may use."),
        readOnly=_strings("Those of them that are read-only."),
    ),
}
OUTPUTS["read_file"] = OUTPUTS["read_text_file"]

EDITS = {
    "type": "array",
    "description": "The replacements, applied in order.",
    "items": _object(
        oldText=_said(_STR, "Text to search for - must match exactly, once."),
        newText=_said(_STR, "Text to replace with"),
    ),
}

# What each parameter means, for the published input schemas (kept out of the docstrings so that
# describing the tools needs no docstring parser at start-up).
PARAMS: dict[str, dict[str, str]] = {
    "read_media_file": {
        "path": "The file.",
    },
    "read_multiple_files": {
        "paths": "Array of file paths to read. Each path must be a string pointing to a valid "
        "file within allowed directories.",
    },
    "write_file": {
        "path": "The file.",
        "content": "Its new content.",
    },
    "append_file": {
        "path": "The file.",
        "content": "The text to add at its end.",
    },
    "edit_file": {
        "path": "The file.",
        "edits": "The replacements, applied in order.",
        "dryRun": "Preview changes using git-style diff format, writing nothing.",
        "expectedHash": "The file's SHA-256 as last read (read_text_file's sha256): the edit "
        "is refused if the file changed since.",
    },
    "create_directory": {
        "path": "The directory.",
    },
    "move_file": {
        "source": "What to move.",
        "destination": "Where to.",
    },
    "copy_file": {
        "source": "The file to copy.",
        "destination": "The new file.",
    },
    "list_directory": {
        "path": "The directory.",
    },
    "list_directory_with_sizes": {
        "path": "The directory.",
        "sortBy": "Sort entries by name or size",
    },
    "directory_tree": {
        "path": "The directory.",
        "excludePatterns": "Glob patterns of relative paths to leave out.",
        "maxDepth": "How many levels below `path` to show (default: the server's bound).",
        "maxEntries": "The most entries to show (default: the server's bound).",
    },
    "search_files": {
        "path": "Where to search.",
        "pattern": "The glob.",
        "excludePatterns": "Globs of relative paths to leave out.",
    },
    "search_file_contents": {
        "path": "The file or directory to search.",
        "pattern": "The regular expression.",
        "filePattern": "Only files whose relative path matches this glob (e.g. '**/*.py').",
        "excludePatterns": "Globs of relative paths to leave out.",
        "caseSensitive": "Whether case matters.",
        "maxResults": "The most matches to return (default: the server's bound).",
    },
    "get_file_info": {
        "path": "The file or directory.",
    },
    "read_text_file": {
        "path": "The file.",
        "head": "If provided, returns only the first N lines of the file.",
        "tail": "If provided, returns only the last N lines of the file.",
        "offset": "The line number to start at (1-based).",
        "limit": "How many lines to return from `offset`.",
    },
}
PARAMS["read_file"] = PARAMS["read_text_file"]
