"""The embedding model of an index, by the short name the command uses.

``local`` is the offline default (all-MiniLM-L6-v2 on onnxruntime), ``google``
Google's embedding API (needs ``GOOGLE_API_KEY``), ``hash`` or ``hash-N``
deterministic test vectors of size N (256 by default), and ``onnx:DIR`` or
``onnx:OWNER/NAME[@REVISION]`` any sentence-transformers model exported to ONNX
(:class:`~ragkit.embeddings.OnnxEmbeddings`; a directory is recorded by its absolute
path, see :func:`spec_of`).

Example:
    >>> make_embeddings("hash-32").model_id
    'hash-32'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from ragkit.embeddings.base import Embeddings

EMBEDDINGS = ("local", "google", "hash", "onnx:DIR|REPO")
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
    if name.startswith("onnx:") and name[5:].strip():
        from ragkit.embeddings import OnnxEmbeddings

        return OnnxEmbeddings(name[5:].strip(), batch_size=LOCAL_BATCH_SIZE)
    raise ConfigurationError(
        "embedding must be one of local, google, hash, hash-N, onnx:DIR (a model directory) "
        f"or onnx:OWNER/NAME (a model repository); got {name!r}"
    )


def spec_of(embeddings: Embeddings, name: str | None = None) -> str:
    """The name an index records for ``embeddings`` ("" for a model it cannot re-create by name).

    ``onnx:`` models are recorded by absolute directory (or repository), so the index opens
    from any working directory.
    """
    spec = getattr(embeddings, "spec", None)
    if isinstance(spec, str) and spec:
        return spec
    if name is not None and not name.startswith("onnx:"):
        return name
    model_id = embeddings.model_id
    return model_id if model_id.startswith("hash-") else ""


def worth_caching(embeddings: Embeddings) -> bool:
    """Whether vectors cost enough to cache on disk (hash vectors are cheaper to recompute than to read)."""
    return not embeddings.model_id.startswith("hash-")
