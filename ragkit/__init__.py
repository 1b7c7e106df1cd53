"""ragkit: retrieval-augmented generation with LangChain's concepts, offline by default.

The names most people need are importable from here; everything else lives in
the stage folders (``ragkit.loaders``, ``ragkit.splitters``, ``ragkit.embeddings``,
``ragkit.stores``, ``ragkit.retrievers``, ``ragkit.chains``, ...). Names load on
first use, so ``import ragkit`` costs almost nothing.

Example:
    >>> from ragkit import RunnableLambda
    >>> (RunnableLambda(str.upper) | (lambda s: s + "!")).invoke("hi")
    'HI!'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_getattr

if TYPE_CHECKING:
    from ragkit.core import (
        Runnable,
        RunnableBranch,
        RunnableConfig,
        RunnableLambda,
        RunnableParallel,
        RunnablePassthrough,
        RunnableSequence,
        chain,
    )
    from ragkit.documents import Document

__version__ = "0.1.0"

_LAZY = {
    "Document": "ragkit.documents",
    "Runnable": "ragkit.core",
    "RunnableBranch": "ragkit.core",
    "RunnableConfig": "ragkit.core",
    "RunnableLambda": "ragkit.core",
    "RunnableParallel": "ragkit.core",
    "RunnablePassthrough": "ragkit.core",
    "RunnableSequence": "ragkit.core",
    "chain": "ragkit.core",
    "Index": "ragkit.indexing.index_dir",
}

__all__ = [
    "Document",
    "Runnable",
    "RunnableBranch",
    "RunnableConfig",
    "RunnableLambda",
    "RunnableParallel",
    "RunnablePassthrough",
    "RunnableSequence",
    "chain",
]


__getattr__ = lazy_getattr(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
