"""Every cache test starts and ends without a global LLM cache (LangChain's too)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_global_cache():
    from langchain_core.globals import set_llm_cache as lc_set

    from ragkit.globals import set_llm_cache

    set_llm_cache(None)
    lc_set(None)
    yield
    set_llm_cache(None)
    lc_set(None)
