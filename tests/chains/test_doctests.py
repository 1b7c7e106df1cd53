"""The usage examples in the docstrings of the chains and tools modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ragkit.tools",
    "ragkit.tools.base",
    "ragkit.tools.decorator",
    "ragkit.tools.docstrings",
    "ragkit.chains.llm_chain.chain",
    "ragkit.chains.llm_chain.state",
    "ragkit.chains.llm_chain.modes",
    "ragkit.chains.llm_chain.deltas",
    "ragkit.chains.llm_chain.processors",
    "ragkit.chains.llm_chain.tool_execution",
    "ragkit.chains.llm_chain.run_support",
    "ragkit.chains.llm_chain.handlers",
    "ragkit.chains.history",
    "ragkit.chains.history_base",
    "ragkit.chains.history_file",
    "ragkit.chains.history_sqlite",
    "ragkit.chains.history_runnable",
    "ragkit.chains.rag",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str):
    result = doctest.testmod(importlib.import_module(name), verbose=False)
    assert result.attempted > 0, f"{name} has no docstring example"
    assert result.failed == 0
