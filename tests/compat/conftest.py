"""Fixtures of the compatibility suite: the shared local model and a blog post on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.compat.shared import BLOG_POST, LocalModelForLangChain
from tests.google.conftest import _no_ambient_keys, emulator  # noqa: F401 (fixtures)
from tests.loaders.web_server import html, serve


@pytest.fixture(scope="session")
def local_model() -> LocalModelForLangChain:
    """One instance for both runs of every snippet (the model loads once)."""
    return LocalModelForLangChain()


@pytest.fixture
def blog_url() -> Iterator[str]:
    with serve({"/posts/agents/": html(BLOG_POST)}) as site:
        yield site.url("/posts/agents/")
