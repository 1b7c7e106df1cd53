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
def _restore_logging() -> Iterator[None]:
    """Snippets copied from LangChain's docs set log levels and call ``logging.basicConfig()``
    (the multi-query page turns ``langchain.retrievers.multi_query`` to INFO); put every level
    and the root handlers back so later tests see the logging they started with."""
    manager = logging.Logger.manager
    root = logging.getLogger()
    levels = {
        name: obj.level
        for name, obj in manager.loggerDict.items()
        if isinstance(obj, logging.Logger)
    }
    root_level, root_handlers = root.level, list(root.handlers)
    yield
    for name, obj in list(manager.loggerDict.items()):
        # loggers made during the test keep what their library gave them, except LangChain's
        if isinstance(obj, logging.Logger) and (name in levels or name.startswith("langchain")):
            obj.setLevel(levels.get(name, logging.NOTSET))
    root.setLevel(root_level)
    for handler in [h for h in root.handlers if h not in root_handlers]:
        root.removeHandler(handler)


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
