"""Fixtures of the compatibility suite: the shared local model and a blog post on loopback."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compat.shared import BLOG_POST, LocalModelForLangChain
from tests.google.conftest import _no_ambient_keys, emulator  # noqa: F401 (fixtures)
from tests.loaders.web_server import html, serve


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """Snippets configure logging as the pages do (``logging.basicConfig()``, a logger at INFO);
    put it back so no later test finds LangChain's multi-query logger enabled."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    named = {name: logging.getLogger(name).level for name in logging.root.manager.loggerDict}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):
            logger.setLevel(named.get(name, logging.NOTSET))


@pytest.fixture(scope="session")
def local_model() -> LocalModelForLangChain:
    """One instance for both runs of every snippet (the model loads once)."""
    return LocalModelForLangChain()


@pytest.fixture
def blog_url() -> Iterator[str]:
    with serve({"/posts/agents/": html(BLOG_POST)}) as site:
        yield site.url("/posts/agents/")


DATASET = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care" / "docs"


@pytest.fixture
def essays(tmp_path: Path) -> list[Path]:
    """Two text files standing in for a tutorial's long essays: the shipped bicycle-care
    articles, 25 to a file, blank lines between them."""
    articles = sorted(DATASET.glob("*.md"))
    paths = []
    for n, part in enumerate((articles[:25], articles[25:]), start=1):
        path = tmp_path / f"bicycle_care_{n}.txt"
        text = "\n\n".join(a.read_text(encoding="utf-8").strip() for a in part)
        path.write_text(text + "\n", encoding="utf-8")
        paths.append(path)
    return paths
