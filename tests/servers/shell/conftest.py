"""toolwire-shell tests run its server as a subprocess; they need Linux's /proc for the
process-table checks."""

from __future__ import annotations

import sys

import pytest

if not sys.platform.startswith("linux"):
    pytest.skip("the process-table checks read Linux's /proc", allow_module_level=True)
