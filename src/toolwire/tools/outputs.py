"""Results richer than a string: text, an image or a file, in the Agents SDK's shapes.

A tool may return these models, dicts of the same shape, or a list mixing them; the MCP server
makes them content blocks. Fields and rules are the SDK's, so results cross over unchanged.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, model_validator

__all__ = ["ToolOutputFileContent", "ToolOutputImage", "ToolOutputText"]


class ToolOutputText(BaseModel):
    """Text for the model.

    Args:
        text: What the model reads.
    """

    type: Literal["text"] = "text"
    text: str


class ToolOutputImage(BaseModel):
    """An image for the model, given by address or by an uploaded file's id.

    Args:
        image_url: Where the image is: an http(s) URL, or a `data:image/...;base64,` URL.
        file_id: The id under which the image was uploaded before.
        detail: How closely a vision model looks: "low", "high" or "auto".
    """

    @model_validator(mode="after")
    def require_a_source(self) -> ToolOutputImage:
        """An image with no address and no id shows nothing."""
        if self.image_url is None and self.file_id is None:
            raise ValueError("At least one of image_url or file_id must be provided")
        return self

    type: Literal["image"] = "image"
    image_url: str | None = None
    file_id: str | None = None
    detail: Literal["low", "high", "auto"] | None = None


class ToolOutputFileContent(BaseModel):
    """A file for the model, given inline, by address, or by an uploaded file's id.

    Args:
        file_data: The file's bytes in base64.
        file_url: Where the file can be downloaded.
        file_id: The id under which the file was uploaded before.
        filename: A name to go with `file_data`.
    """

    @model_validator(mode="after")
    def require_a_source(self) -> ToolOutputFileContent:
        """A file needs its bytes, an address or an id; a name alone is not a file."""
        if self.file_data is None and self.file_url is None and self.file_id is None:
            raise ValueError("At least one of file_data, file_url, or file_id must be provided")
        return self

    type: Literal["file"] = "file"
    file_data: str | None = None
    file_url: str | None = None
    file_id: str | None = None
    filename: str | None = None
