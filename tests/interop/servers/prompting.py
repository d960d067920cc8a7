"""A toolwire server publishing prompts with completers, for client interop tests.

Run as a script it serves stdio; `server` is what `python -m toolwire run` finds.
"""

from __future__ import annotations

import base64
from typing import Any

from toolwire import EmbeddedResource, Icon, PromptMessage, Server, ToolOutputImage

PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()

server = Server(
    "prompting",
    version="0.3.0",
    icons=[Icon("https://example.test/prompting.png", mime_type="image/png")],
)


@server.prompt(
    title="Code review",
    completers={"language": ["python", "rust", "go", "perl"]},
)
def review(code: str, language: str = "python") -> list[Any]:
    """Review a piece of code.

    Args:
        code: The code to review.
        language: The language it is written in.
    """
    return [
        f"Please review this {language} code.",
        PromptMessage(EmbeddedResource("file:///snippet", text=code, mime_type="text/plain")),
        PromptMessage("I will look at it.", role="assistant"),
    ]


@server.prompt
async def picture(caption: str) -> list[PromptMessage]:
    """Describe a picture.

    Args:
        caption: What the picture shows.
    """
    return [
        PromptMessage(ToolOutputImage(image_url=f"data:image/png;base64,{PIXEL}")),
        PromptMessage(f"Caption: {caption}"),
    ]


@server.prompt
def repeat(text: str, times: int = 2) -> str:
    """Repeat a text.

    Args:
        text: What to repeat.
        times: How many times.
    """
    return " ".join([text] * times)


if __name__ == "__main__":
    server.run()
