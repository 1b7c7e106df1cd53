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

from ragkit._lazy import lazy_exports

__version__ = "0.1.0"

__all__ = [
    "Document",
    "Index",
    "Runnable",
    "RunnableBranch",
    "RunnableConfig",
    "RunnableLambda",
    "RunnableParallel",
    "RunnablePassthrough",
    "RunnableSequence",
    "chain",
]

_LAZY = {
    "Runnable": "ragkit.core",
    "RunnableBranch": "ragkit.core",
    "RunnableConfig": "ragkit.core",
    "RunnableLambda": "ragkit.core",
    "RunnableParallel": "ragkit.core",
    "RunnablePassthrough": "ragkit.core",
    "RunnableSequence": "ragkit.core",
    "chain": "ragkit.core",
    "Document": "ragkit.documents",
    "Index": "ragkit.indexing",
}

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
    from ragkit.indexing import Index
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
