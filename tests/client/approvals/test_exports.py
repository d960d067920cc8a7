"""The approval names are public on `toolwire` and cost nothing heavy until used with the SDK."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import toolwire
names = [toolwire.HostedMCPTool, toolwire.MCPToolApprovalRequest,
         toolwire.MCPToolApprovalFunctionResult, toolwire.MCPToolApprovalFunction]
tool = toolwire.HostedMCPTool({"type": "mcp", "server_label": "x"}, lambda request: {"approve": True})
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {"agents", "mcp", "openai"})))
"""


def test_public_names_load_without_agents_mcp_or_openai() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert json.loads(out) == []


def test_names_are_listed() -> None:
    import toolwire

    for name in (
        "HostedMCPTool",
        "MCPToolApprovalRequest",
        "MCPToolApprovalFunctionResult",
        "MCPToolApprovalFunction",
    ):
        assert name in toolwire.__all__ and name in dir(toolwire)
