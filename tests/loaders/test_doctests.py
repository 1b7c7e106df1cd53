"""The usage examples in the loader and splitter docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ragkit.loaders
import ragkit.splitters

MODULES = [
    f"{pkg.__name__}.{info.name}"
    for pkg in (ragkit.loaders, ragkit.splitters)
    for info in pkgutil.iter_modules(pkg.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no usage example"
