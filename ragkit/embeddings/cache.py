"""CacheBackedEmbeddings: never embed the same text twice with the same model.

Vectors are kept in a byte store (:class:`~ragkit.stores.InMemoryByteStore`,
:class:`~ragkit.stores.LocalFileStore`, ...) under ``namespace + hash(text)``,
as raw little-endian float32 bytes (no pickle, no JSON). The namespace
defaults to the underlying model's ``model_id``, so vectors of different
models or settings never mix. Re-indexing unchanged text reads its vector
back instead of running the model.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.stores import InMemoryByteStore
    >>> store = InMemoryByteStore()
    >>> emb = CacheBackedEmbeddings.from_bytes_store(HashEmbeddings(8), store)
    >>> v = emb.embed_documents(["hello"])
    >>> list(store.yield_keys())[0].startswith("hash-8/")
    True
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from ragkit.embeddings.adapter import as_embeddings
from ragkit.embeddings.base import Embeddings, WrappedEmbeddings
from ragkit.errors import ConfigurationError, EmbeddingMismatchError

if TYPE_CHECKING:
    from ragkit.stores.kv import BaseStore

KeyEncoder = Literal["sha256", "blake2b", "sha512", "sha1"]
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")
_DTYPE = np.dtype("<f4")


def default_namespace(embeddings: Embeddings) -> str:
    """``model_id`` made safe as a key prefix (``/`` ends it, so file stores get one folder per model)."""
    return _UNSAFE.sub("_", embeddings.model_id) + "/"


def _hasher(algorithm: str) -> Callable[[bytes], str]:
    if algorithm not in ("sha256", "blake2b", "sha512", "sha1"):
        raise ConfigurationError(
            f"key_encoder must be 'sha256', 'blake2b', 'sha512', 'sha1' or a callable, got {algorithm!r}"
        )

    def digest(data: bytes) -> str:
        return hashlib.new(algorithm, data).hexdigest()

    return digest


class CacheBackedEmbeddings(WrappedEmbeddings):
    """Wraps ``underlying_embeddings`` with a byte-store cache of document (and optionally query) vectors.

    Args:
        underlying_embeddings: the model that computes vectors on a cache miss.
        document_embedding_store: where document vectors are cached.
        batch_size: embed misses this many at a time, storing each batch as it is done
            (an interrupted job keeps what it finished); ``None`` embeds all misses at once.
        query_embedding_store: where query vectors are cached (``None``: queries are not cached).
        namespace: key prefix; defaults to ``underlying_embeddings.model_id`` + ``/``.
        key_encoder: hash of the text used in keys, or a callable ``text -> key``
            (then the namespace is not added).

    Stored values that cannot be a vector of this model (wrong length, NaN/inf)
    are treated as misses: recomputed and overwritten.
    """

    def __init__(
        self,
        underlying_embeddings: Embeddings,
        document_embedding_store: BaseStore[str, bytes],
        *,
        batch_size: int | None = None,
        query_embedding_store: BaseStore[str, bytes] | None = None,
        namespace: str | None = None,
        key_encoder: KeyEncoder | Callable[[str], str] = "sha256",
    ) -> None:
        if batch_size is not None and batch_size <= 0:
            raise ConfigurationError(f"batch_size must be positive or None, got {batch_size}")
        underlying_embeddings = as_embeddings(underlying_embeddings, "underlying_embeddings")
        self.underlying_embeddings = underlying_embeddings
        self.document_embedding_store = document_embedding_store
        self.query_embedding_store = query_embedding_store
        self.batch_size = batch_size
        if callable(key_encoder):
            if namespace:
                raise ConfigurationError(
                    "pass either namespace or a callable key_encoder, not both "
                    "(the callable builds the whole key)"
                )
            self.namespace = ""
            self._encode: Callable[[str], str] = key_encoder
        else:
            self.namespace = (
                default_namespace(underlying_embeddings) if namespace is None else namespace
            )
            digest = _hasher(key_encoder)
            prefix = self.namespace
            self._encode = lambda text: prefix + digest(text.encode("utf-8", "surrogatepass"))

    @classmethod
    def from_bytes_store(
        cls,
        underlying_embeddings: Embeddings,
        document_embedding_cache: BaseStore[str, bytes],
        *,
        namespace: str | None = None,
        batch_size: int | None = None,
        query_embedding_cache: bool | BaseStore[str, bytes] = False,
        key_encoder: KeyEncoder | Callable[[str], str] = "sha256",
    ) -> CacheBackedEmbeddings:
        """LangChain's constructor: ``query_embedding_cache=True`` caches queries in the document store."""
        query_store: BaseStore[str, bytes] | None
        if query_embedding_cache is True:
            query_store = document_embedding_cache
        elif query_embedding_cache is False:
            query_store = None
        else:
            query_store = query_embedding_cache
        return cls(
            underlying_embeddings,
            document_embedding_cache,
            batch_size=batch_size,
            query_embedding_store=query_store,
            namespace=namespace,
            key_encoder=key_encoder,
        )

    @property
    def wrapped(self) -> Embeddings:
        return self.underlying_embeddings

    def key(self, text: str) -> str:
        """The store key of ``text``'s vector."""
        return self._encode(text)

    # -- decoding ----------------------------------------------------------------
    def _decode(self, value: bytes | None, dim: int | None) -> np.ndarray | None:
        if value is None or len(value) == 0 or len(value) % 4:
            return None
        vec = np.frombuffer(value, dtype=_DTYPE)
        if (dim is not None and vec.shape[0] != dim) or not np.isfinite(vec).all():
            return None
        return vec.astype(np.float32)

    def _plan(self, texts: Sequence[str]) -> tuple[list[str], list[int]]:
        """Keys of ``texts`` and the index of the first text of each distinct key."""
        keys = [self._encode(t) for t in texts]
        first: dict[str, int] = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        return keys, list(first.values())

    def _batches(self, items: list[int]) -> list[list[int]]:
        size = self.batch_size or max(1, len(items))
        return [items[i : i + size] for i in range(0, len(items), size)]

    def _assemble(self, keys: list[str], found: dict[str, np.ndarray]) -> np.ndarray:
        rows = [found[k] for k in keys]
        if len({row.shape[0] for row in rows}) > 1:
            raise EmbeddingMismatchError(
                f"the cache under namespace {self.namespace!r} holds vectors of different lengths; "
                "use a namespace per model (the default) or clear the cache"
            )
        return np.stack(rows).astype(np.float32, copy=False)

    # -- documents -----------------------------------------------------------------
    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        keys, unique_idx = self._plan(texts)
        unique_keys = [keys[i] for i in unique_idx]
        dim = self.dimension
        found: dict[str, np.ndarray] = {}
        for key, value in zip(unique_keys, self.document_embedding_store.mget(unique_keys)):
            vec = self._decode(value, dim)
            if vec is not None:
                found[key] = vec
        missing = [i for i in unique_idx if keys[i] not in found]
        for batch in self._batches(missing):
            matrix = self.underlying_embeddings.embed_documents_array([texts[i] for i in batch])
            rows = [(keys[i], matrix[j].astype(_DTYPE).tobytes()) for j, i in enumerate(batch)]
            self.document_embedding_store.mset(rows)
            for j, i in enumerate(batch):
                found[keys[i]] = matrix[j]
        if not texts:
            return np.zeros((0, dim or 0), dtype=np.float32)
        return self._assemble(keys, found)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        texts = list(texts)
        keys, unique_idx = self._plan(texts)
        unique_keys = [keys[i] for i in unique_idx]
        dim = self.dimension
        found: dict[str, np.ndarray] = {}
        for key, value in zip(unique_keys, await self.document_embedding_store.amget(unique_keys)):
            vec = self._decode(value, dim)
            if vec is not None:
                found[key] = vec
        missing = [i for i in unique_idx if keys[i] not in found]
        for batch in self._batches(missing):
            vectors = await self.underlying_embeddings.aembed_documents([texts[i] for i in batch])
            matrix = np.asarray(vectors, dtype=np.float32).reshape(len(batch), -1)
            await self.document_embedding_store.amset(
                [(keys[i], matrix[j].astype(_DTYPE).tobytes()) for j, i in enumerate(batch)]
            )
            for j, i in enumerate(batch):
                found[keys[i]] = matrix[j]
        return self._assemble(keys, found).tolist() if texts else []

    # -- queries -------------------------------------------------------------------
    def embed_query_array(self, text: str) -> np.ndarray:
        store = self.query_embedding_store
        if store is None:
            return self.underlying_embeddings.embed_query_array(text)
        key = self._encode(text)
        cached = self._decode(store.mget([key])[0], self.dimension)
        if cached is not None:
            return cached
        vec = np.asarray(self.underlying_embeddings.embed_query_array(text), dtype=np.float32)
        store.mset([(key, vec.astype(_DTYPE).tobytes())])
        return vec

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.embed_query_array(text)]

    async def aembed_query(self, text: str) -> list[float]:
        store = self.query_embedding_store
        if store is None:
            return await self.underlying_embeddings.aembed_query(text)
        key = self._encode(text)
        cached = self._decode((await store.amget([key]))[0], self.dimension)
        if cached is not None:
            return cached.tolist()
        vec = np.asarray(await self.underlying_embeddings.aembed_query(text), dtype=np.float32)
        await store.amset([(key, vec.astype(_DTYPE).tobytes())])
        return vec.tolist()
