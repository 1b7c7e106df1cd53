"""FAISS plumbing for FaissStore: distance strategies, index creation, vector checks, rebuilds.

Kept apart from the store so the store reads as LangChain's surface and this
module holds everything that touches FAISS's C++ objects. FAISS aborts or
misbehaves on bad input (NaN, wrong width, untrained index), so every vector
goes through :func:`as_matrix` first.

Example:
    >>> strategy = distance_strategy("COSINE")
    >>> strategy.value, uses_l2(strategy), from_faiss(strategy, 0.8)
    ('COSINE', False, 0.19999999999999996)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ragkit._lazy import optional_module
from ragkit.errors import ConfigurationError, EmbeddingMismatchError
from ragkit.stores.distance import VECTOR_STRATEGIES, DistanceStrategy
from ragkit.stores.distance import distance_strategy as _parse
from ragkit.stores.matrix import check_matrix

#: The strategies FaissStore computes (a manifest names them as ``STORED_NAMES`` says).
SUPPORTED = VECTOR_STRATEGIES


def faiss_module() -> Any:
    return optional_module(
        "faiss", "FaissStore needs faiss: pip install 'ragkit[local]' (faiss-cpu)"
    )


def distance_strategy(value: object) -> DistanceStrategy:
    """Normalise a strategy (ours, LangChain's ``DistanceStrategy`` or a name) for FaissStore."""
    return _parse(value, SUPPORTED, "FaissStore")


def uses_l2(strategy: DistanceStrategy) -> bool:
    """True when the FAISS index measures L2 distance (else inner product)."""
    return strategy is DistanceStrategy.EUCLIDEAN_DISTANCE


def unit_vectors(strategy: DistanceStrategy, normalize_L2: bool = False) -> bool:  # noqa: N803
    """True when vectors are scaled to length 1 on the way in (cosine strategies, normalize_L2)."""
    return normalize_L2 or strategy in (DistanceStrategy.COSINE, DistanceStrategy.COSINE_SIMILARITY)


def from_faiss(strategy: DistanceStrategy, raw: float) -> float:
    """FAISS's raw result (inner product or squared L2) as the strategy's score."""
    return 1.0 - raw if strategy is DistanceStrategy.COSINE else raw


def faiss_threshold(strategy: DistanceStrategy, threshold: float | None) -> float | None:
    """A ``score_threshold`` on the strategy's scores as one on FAISS's raw results."""
    if threshold is None:
        return None
    return 1.0 - threshold if strategy is DistanceStrategy.COSINE else threshold


def new_index(dimension: int, strategy: DistanceStrategy, factory: str | None) -> Any:
    faiss = faiss_module()
    l2 = uses_l2(strategy)
    metric = faiss.METRIC_L2 if l2 else faiss.METRIC_INNER_PRODUCT
    if factory is None or factory == "Flat":
        return faiss.IndexFlatL2(dimension) if l2 else faiss.IndexFlatIP(dimension)
    try:
        index = faiss.index_factory(dimension, factory, metric)
    except RuntimeError as err:
        raise ConfigurationError(
            f"index_factory={factory!r} is not a valid FAISS factory string for dimension "
            f"{dimension} (examples: 'HNSW32', 'IVF256,Flat'): {_faiss_message(err)}"
        ) from None
    prepare_index(index)
    return index


def prepare_index(index: Any) -> None:
    """Give IVF indexes a direct map so vectors can be read back (MMR, rebuilds)."""
    faiss = faiss_module()
    try:
        ivf = faiss.extract_index_ivf(index)
    except RuntimeError:
        return
    if ivf.direct_map.type == faiss.DirectMap.NoMap:
        ivf.make_direct_map()


def is_flat(index: Any) -> bool:
    return isinstance(index, faiss_module().IndexFlat)


def _faiss_message(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[-1] if text else type(err).__name__


def as_matrix(
    vectors: Any, dimension: int | None, *, what: str = "vectors", unit: bool = False
) -> np.ndarray:
    """``vectors`` checked before FAISS sees them (:func:`ragkit.stores.matrix.check_matrix`,
    with FAISS's own squared norms for many rows)."""
    return check_matrix(vectors, dimension, what=what, unit=unit, norms=_squared_norms)


def _squared_norms(matrix: np.ndarray) -> np.ndarray:
    if matrix.shape[0] <= 16:
        return np.einsum("ij,ij->i", matrix, matrix)
    faiss = faiss_module()
    out = np.empty(matrix.shape[0], dtype=np.float32)
    faiss.fvec_norms_L2sqr(
        faiss.swig_ptr(out), faiss.swig_ptr(matrix), matrix.shape[1], matrix.shape[0]
    )
    return out


def flat_view(index: Any) -> np.ndarray | None:
    """A zero-copy ``(ntotal, d)`` view of a flat index's vectors (invalid after the index changes)."""
    if not is_flat(index) or index.ntotal == 0:
        return None
    faiss = faiss_module()
    return faiss.rev_swig_ptr(index.get_xb(), index.ntotal * index.d).reshape(index.ntotal, index.d)


def vectors_at(
    index: Any, positions: Sequence[int] | np.ndarray, view: np.ndarray | None = None
) -> np.ndarray:
    """The stored vectors at ``positions`` (exact for Flat/HNSW/IVF-Flat, decoded for compressed codes)."""
    pos = np.asarray(positions, dtype=np.int64)
    if pos.size == 0:
        return np.zeros((0, index.d), dtype=np.float32)
    if view is None:
        view = flat_view(index)
    if view is not None:
        return view[pos]
    return np.asarray(index.reconstruct_batch(pos), dtype=np.float32)


def remove_positions(index: Any, keep: np.ndarray) -> None:
    """Drop the vectors where ``keep`` is False; the others keep their order (positions compact)."""
    faiss = faiss_module()
    if is_flat(index):
        drop = np.flatnonzero(~keep).astype(np.int64)
        index.remove_ids(faiss.IDSelectorBatch(drop.size, faiss.swig_ptr(drop)))
        return
    kept = vectors_at(index, np.flatnonzero(keep))
    index.reset()
    prepare_index(index)
    if kept.shape[0]:
        index.add(kept)


#: From this many queries on, exact inner-product search on a flat index is one BLAS matrix
#: product (numpy) instead of FAISS's per-query scan, which FAISS only replaces by BLAS for
#: very large batches.
BLAS_MIN_QUERIES = 8
_BLAS_BLOCK = 1 << 24  # scores per block: 64 MB of float32


def search(index: Any, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` scores and positions per query row, ``k`` capped at the index size."""
    k = max(1, min(k, index.ntotal))
    if (
        queries.shape[0] >= BLAS_MIN_QUERIES
        and is_flat(index)
        and index.metric_type == faiss_module().METRIC_INNER_PRODUCT
    ):
        view = flat_view(index)
        assert view is not None
        return _blas_search(view, queries, k)
    scores, positions = index.search(queries, k)
    return scores, positions


def _blas_search(vectors: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    n = vectors.shape[0]
    nq = queries.shape[0]
    scores = np.empty((nq, k), dtype=np.float32)
    positions = np.empty((nq, k), dtype=np.int64)
    block = max(1, min(nq, _BLAS_BLOCK // n))
    for start in range(0, nq, block):
        sims = queries[start : start + block] @ vectors.T
        if k <= _ARGMAX_MAX_K:
            _top_by_argmax(sims, k, scores[start : start + block], positions[start : start + block])
            continue
        if k < n:
            top = np.argpartition(sims, n - k, axis=1)[:, n - k :]
        else:
            top = np.broadcast_to(np.arange(n), sims.shape)
        top_scores = np.take_along_axis(sims, top, axis=1)
        order = np.lexsort((top, -top_scores), axis=1)  # best first, ties by position
        positions[start : start + block] = np.take_along_axis(top, order, axis=1)
        scores[start : start + block] = np.take_along_axis(top_scores, order, axis=1)
    return scores, positions


#: Up to this k, the top k of a score block are found by k passes of argmax (each pass is
#: a fast vectorised scan) instead of a partition of the whole block, which costs several passes.
_ARGMAX_MAX_K = 16


def _top_by_argmax(sims: np.ndarray, k: int, scores: np.ndarray, positions: np.ndarray) -> None:
    """Best-first top ``k`` of each row of ``sims`` (a scratch block: picked cells are overwritten).

    ``argmax`` returns the first maximum, so ties go to the lower position, as in the partition path.
    """
    rows = np.arange(sims.shape[0])
    for j in range(k):
        best = sims.argmax(axis=1)
        positions[:, j] = best
        scores[:, j] = sims[rows, best]
        sims[rows, best] = -np.inf


def check_dimension(model_dimension: int | None, dimension: int, source: str) -> None:
    if model_dimension is not None and model_dimension != dimension:
        raise EmbeddingMismatchError(
            f"{source} holds vectors of dimension {dimension}, but the embeddings produce {model_dimension}; "
            "load it with the embedding model that built it"
        )
