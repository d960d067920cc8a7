"""Audio returned by a tool reaches the client as MCP `audio` content where the version has it."""

from __future__ import annotations

import pytest

from toolwire import ToolOutputFileContent
from toolwire.protocol.wire.content import content_to_outputs, output_block

WAV = "data:audio/wav;base64,UklGRg=="


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_audio_data_is_an_audio_block(version: str) -> None:
    block = output_block(ToolOutputFileContent(file_data=WAV, filename="a.wav"), version)
    assert block == {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}


def test_before_audio_existed_it_stays_an_embedded_blob() -> None:
    block = output_block(ToolOutputFileContent(file_data=WAV, filename="a.wav"), "2024-11-05")
    assert block == {
        "type": "resource",
        "resource": {"uri": "file:///a.wav", "mimeType": "audio/wav", "blob": "UklGRg=="},
    }


def test_other_files_and_bare_base64_stay_embedded_blobs() -> None:
    pdf = output_block(ToolOutputFileContent(file_data="data:application/pdf;base64,QQ=="))
    assert pdf["type"] == "resource"
    bare = output_block(ToolOutputFileContent(file_data="UklGRg==", filename="a.wav"))
    assert bare["type"] == "resource"


def test_audio_round_trips_through_the_client_direction() -> None:
    output = ToolOutputFileContent(file_data=WAV)
    assert content_to_outputs([output_block(output)]) == [output]
