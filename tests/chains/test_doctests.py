"""The usage examples in the docstrings of the chains and tools modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ragkit.tools",
    "ragkit.tools.tool",
    "ragkit.tools.decorator",
    "ragkit.tools.docstrings",
    "ragkit.chains.llm_chain",
    "ragkit.chains.chain_state",
    "ragkit.chains.modes",
    "ragkit.chains.deltas",
    "ragkit.chains.processors",
    "ragkit.chains.tool_execution",
    "ragkit.chains.run_support",
    "ragkit.chains.callbacks",
    "ragkit.chains.history",
    "ragkit.chains.history.base",
    "ragkit.chains.history.file",
    "ragkit.chains.history.sqlite",
    "ragkit.chains.history.runnable",
    "ragkit.chains.rag",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str):
    result = doctest.testmod(importlib.import_module(name), verbose=False)
    assert result.attempted > 0, f"{name} has no docstring example"
    assert result.failed == 0
