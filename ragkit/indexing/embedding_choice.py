"""The embedding model of an index, by the short name the command uses.

``local`` is the offline default (all-MiniLM-L6-v2 on onnxruntime), ``google``
Google's embedding API (needs ``GOOGLE_API_KEY``), ``hash`` or ``hash-N``
deterministic test vectors of size N (256 by default).

Example:
    >>> make_embeddings("hash-32").model_id
    'hash-32'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

EMBEDDINGS = ("local", "google", "hash")
LOCAL_BATCH_SIZE = 8


def make_embeddings(name: str) -> Embeddings:
    """Create the embedding model called ``name`` (see the module docstring)."""
    if name == "hash" or name.startswith("hash-"):
        from ragkit.embeddings import HashEmbeddings

        size = name.partition("-")[2] or "256"
        if not size.isdigit() or int(size) <= 0:
            raise ConfigurationError(
                f"embedding {name!r}: the size after 'hash-' must be a positive integer"
            )
        return HashEmbeddings(int(size))
    if name == "local":
        from ragkit.embeddings import LocalEmbeddings

        # Batches of 8 embed as fast as 32 here but need a third of the memory
        # (onnxruntime's arena grows with batch x length^2): ~0.5 GB instead of ~1.5 GB peak.
        return LocalEmbeddings(batch_size=LOCAL_BATCH_SIZE)
    if name == "google":
        from ragkit.embeddings import GoogleGenerativeAIEmbeddings

        return GoogleGenerativeAIEmbeddings()
    raise ConfigurationError(
        f"embedding must be one of local, google, hash or hash-N; got {name!r}"
    )


def worth_caching(embeddings: Embeddings) -> bool:
    """Whether vectors cost enough to cache on disk (hash vectors are cheaper to recompute than to read)."""
    return not embeddings.model_id.startswith("hash-")
