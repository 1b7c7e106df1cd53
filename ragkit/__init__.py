"""ragkit: retrieval-augmented generation with LangChain's concepts, offline by default.

The names most people need are importable from here; everything else lives in
the stage folders (``ragkit.loaders``, ``ragkit.splitters``, ``ragkit.embeddings``,
``ragkit.stores``, ``ragkit.retrievers``, ``ragkit.chains``, ...).

Example:
    >>> from ragkit import RunnableLambda
    >>> (RunnableLambda(str.upper) | (lambda s: s + "!")).invoke("hi")
    'HI!'
"""

from typing import Any

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


def __getattr__(name: str) -> Any:
    # Index pulls in stores and embeddings; import it only when asked for.
    if name == "Index":
        from ragkit.indexing.index_dir import Index

        return Index
    raise AttributeError(f"module 'ragkit' has no attribute {name!r}")
