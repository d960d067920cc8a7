"""Start `toolwire-files` from this checkout whatever the environment the client passes on
(MCP clients give stdio servers a minimal environment, without PYTHONPATH)."""

from __future__ import annotations

import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[3]

if __name__ == "__main__":
    sys.path[:0] = [str(CHECKOUT / "src"), str(CHECKOUT / "servers" / "files" / "src")]
    from toolwire_files.cli import main

    main()
