"""Structured tool outputs: text, images and files, as the Agents SDK defines them.

A tool may return one of these (or a list of them) instead of a string; the MCP server turns
them into content blocks, the Agents SDK into model input items.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pydantic import BaseModel, model_validator

__all__ = [
    "ToolOutputFileContent",
    "ToolOutputFileContentDict",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
]


class ToolOutputText(BaseModel):
    """A tool output sent to the model as text.

    Args:
        text: The text.
    """

    type: Literal["text"] = "text"
    text: str


class ToolOutputTextDict(TypedDict, total=False):
    """TypedDict form of `ToolOutputText`."""

    type: Literal["text"]
    text: str


class ToolOutputImage(BaseModel):
    """A tool output sent to the model as an image: a URL (or data URL) or a file id.

    Args:
        image_url: An http(s) URL or a `data:image/...;base64,` URL.
        file_id: The id of previously uploaded content.
        detail: Vision detail: "low", "high" or "auto".
    """

    type: Literal["image"] = "image"
    image_url: str | None = None
    file_id: str | None = None
    detail: Literal["low", "high", "auto"] | None = None

    @model_validator(mode="after")
    def check_at_least_one_required_field(self) -> ToolOutputImage:
        """Require image_url or file_id."""
        if self.image_url is None and self.file_id is None:
            raise ValueError("At least one of image_url or file_id must be provided")
        return self


class ToolOutputImageDict(TypedDict, total=False):
    """TypedDict form of `ToolOutputImage`."""

    type: Literal["image"]
    image_url: NotRequired[str]
    file_id: NotRequired[str]
    detail: NotRequired[Literal["low", "high", "auto"]]


class ToolOutputFileContent(BaseModel):
    """A tool output sent to the model as a file: base64 data, a URL or a file id.

    Args:
        file_data: The file's bytes, base64-encoded.
        file_url: A URL the file can be fetched from.
        file_id: The id of a previously uploaded file.
        filename: A file name hint, used with file_data.
    """

    type: Literal["file"] = "file"
    file_data: str | None = None
    file_url: str | None = None
    file_id: str | None = None
    filename: str | None = None

    @model_validator(mode="after")
    def check_at_least_one_required_field(self) -> ToolOutputFileContent:
        """Require file_data, file_url or file_id."""
        if self.file_data is None and self.file_url is None and self.file_id is None:
            raise ValueError("At least one of file_data, file_url, or file_id must be provided")
        return self


class ToolOutputFileContentDict(TypedDict, total=False):
    """TypedDict form of `ToolOutputFileContent`."""

    type: Literal["file"]
    file_data: NotRequired[str]
    file_url: NotRequired[str]
    file_id: NotRequired[str]
    filename: NotRequired[str]
