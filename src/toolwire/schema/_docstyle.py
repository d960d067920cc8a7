"""Which docstring convention a text follows, and the one repair google text gets before parsing.

Both answers must be the Agents SDK's to the character: the chosen style decides which parser
reads the docstring, and the repaired text is what that parser sees. Neither needs griffe, so
this module stays cheap to import on the decoration path.
"""

from __future__ import annotations

import re
from typing import Literal

Style = Literal["google", "numpy", "sphinx"]

# Each style is scored by how many of its markers appear at least once (a marker repeated
# counts once). The SDK's choice is the highest score; on a tie the earlier style in this
# table wins, and a text with no marker at all is google.
_MARKERS: tuple[tuple[Style, tuple[re.Pattern[str], ...]], ...] = (
    (
        "sphinx",
        tuple(
            re.compile(pattern, re.MULTILINE)
            for pattern in (r"^:param\s", r"^:type\s", r"^:return:", r"^:rtype:")
        ),
    ),
    (
        "numpy",
        tuple(
            # The underline may sit below blank lines; `\s` spans them.
            re.compile(rf"^{title}\s*\n\s*-{{3,}}", re.MULTILINE)
            for title in ("Parameters", "Returns", "Yields")
        ),
    ),
    (
        "google",
        tuple(
            re.compile(pattern, re.MULTILINE)
            for pattern in (r"^(?:Args|Arguments):", r"^Returns:", r"^Raises:")
        ),
    ),
)


def guess_style(text: str) -> Style:
    """The convention the SDK would parse `text` with when the author named none.

    Args:
        text: A cleaned docstring.

    Returns:
        "google", "numpy" or "sphinx".
    """
    best: Style = "google"
    best_score = 0
    for style, markers in _MARKERS:
        score = sum(1 for marker in markers if marker.search(text))
        if score > best_score:  # strictly greater: ties keep the earlier style
            best, best_score = style, score
    return best


# A parameters header alone on its line, flush left; case does not matter.
_PARAMETERS_HEADER = re.compile(r"(?:args|arguments|params|parameters):\s*", re.IGNORECASE)


def space_google_headers(text: str) -> str:
    """`text` with a blank line opened above each parameters header that sits under prose.

    griffe's google reader ignores a section title that follows a non-blank line, so a summary
    written directly above `Args:` would swallow the parameter list. The SDK inserts the
    blank line when the header is flush left, the line above has text and the line below is
    indented by a space or a tab. When something is inserted the text is rebuilt from
    `str.splitlines()` joined by "\\n" (line separators normalised, a final newline dropped);
    otherwise it comes back untouched.

    Args:
        text: A cleaned docstring about to be read as google.

    Returns:
        The text griffe should parse.
    """
    lines = text.splitlines()
    rebuilt: list[str] = []
    opened = False
    for index, line in enumerate(lines):
        if (
            index
            and index + 1 < len(lines)
            and _PARAMETERS_HEADER.fullmatch(line)
            and lines[index - 1].strip()
            and lines[index + 1][:1] in (" ", "\t")
        ):
            rebuilt.append("")
            opened = True
        rebuilt.append(line)
    return "\n".join(rebuilt) if opened else text
