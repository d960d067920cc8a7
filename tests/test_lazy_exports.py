"""The packages' lazily loaded public names: `dir()` lists each once, loaded or not."""

from __future__ import annotations

from collections import Counter
from types import ModuleType

import pytest

import toolwire
import toolwire.client


@pytest.mark.parametrize("package", [toolwire, toolwire.client], ids=lambda p: p.__name__)
def test_dir_lists_each_public_name_once_after_it_is_loaded(package: ModuleType) -> None:
    for name in package.__all__:
        getattr(package, name)  # loaded into the package's namespace from now on
    listed = Counter(dir(package))
    assert {name: count for name, count in listed.items() if count > 1} == {}
    assert set(package.__all__) <= set(listed)
