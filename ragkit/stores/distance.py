"""DistanceStrategy: what a vector store's raw score means, with LangChain's names.

LangChain's ``DistanceStrategy`` names (and string values) carry over, and so does the
meaning of the raw score each one gives in ``similarity_search_with_score``:

========================  ==============================================  ===============
strategy                  raw score                                       better
========================  ==============================================  ===============
``EUCLIDEAN_DISTANCE``    squared L2 distance (FAISS's ``IndexFlatL2``)   lower
``MAX_INNER_PRODUCT``     inner product                                   higher
``COSINE``                cosine distance, ``1 - cos``                    lower
``COSINE_SIMILARITY``     cosine similarity, ``cos`` (ragkit's own)       higher
========================  ==============================================  ===============

``similarity_search_with_relevance_scores`` maps every one of them into [0, 1],
higher is better; for unit-length vectors all four give the cosine (clipped at 0).
``DOT_PRODUCT`` and ``JACCARD`` exist for LangChain's sake; stores that cannot compute
them refuse them by name.

Strings are read case-insensitively (``"cosine"`` is ``COSINE``, LangChain's cosine
*distance*); ``"l2"``/``"euclidean"`` and ``"ip"``/``"inner_product"`` are accepted too.

Example:
    >>> s = distance_strategy("euclidean_distance")
    >>> s, higher_is_better(s), relevance(s, 0.5)
    (<DistanceStrategy.EUCLIDEAN_DISTANCE: 'EUCLIDEAN_DISTANCE'>, False, 0.75)
    >>> relevance(DistanceStrategy.COSINE, 0.25), relevance(DistanceStrategy.COSINE_SIMILARITY, 0.75)
    (0.75, 0.75)
"""

from __future__ import annotations

from enum import Enum

from ragkit.errors import ConfigurationError


class DistanceStrategy(str, Enum):
    """How vectors are compared (LangChain's enum, plus ragkit's ``COSINE_SIMILARITY``)."""

    EUCLIDEAN_DISTANCE = "EUCLIDEAN_DISTANCE"
    MAX_INNER_PRODUCT = "MAX_INNER_PRODUCT"
    DOT_PRODUCT = "DOT_PRODUCT"
    JACCARD = "JACCARD"
    COSINE = "COSINE"
    COSINE_SIMILARITY = "COSINE_SIMILARITY"

    def __str__(self) -> str:
        return self.value


_ALIASES = {
    "L2": DistanceStrategy.EUCLIDEAN_DISTANCE,
    "EUCLIDEAN": DistanceStrategy.EUCLIDEAN_DISTANCE,
    "IP": DistanceStrategy.MAX_INNER_PRODUCT,
    "INNER_PRODUCT": DistanceStrategy.MAX_INNER_PRODUCT,
}

#: The strategies whose raw score is a distance (lower is better).
DISTANCES = frozenset({DistanceStrategy.EUCLIDEAN_DISTANCE, DistanceStrategy.COSINE})

#: The strategies the stores with vectors (FaissStore, PGVectorStore) compute.
VECTOR_STRATEGIES = (
    DistanceStrategy.COSINE_SIMILARITY,
    DistanceStrategy.COSINE,
    DistanceStrategy.MAX_INNER_PRODUCT,
    DistanceStrategy.EUCLIDEAN_DISTANCE,
)
#: How a saved index names each strategy: a FaissStore manifest and a PGVectorStore collection
#: row alike (the first three are the names ragkit always wrote; ``"cosine"`` is the old
#: default, cosine similarity, and keeps that meaning).
STORED_NAMES = {
    DistanceStrategy.COSINE_SIMILARITY: "cosine",
    DistanceStrategy.MAX_INNER_PRODUCT: "max_inner_product",
    DistanceStrategy.EUCLIDEAN_DISTANCE: "euclidean_distance",
    DistanceStrategy.COSINE: "cosine_distance",
}
#: The strategy each stored name means.
FROM_STORED_NAME = {name: strategy for strategy, name in STORED_NAMES.items()}


def distance_strategy(
    value: object, supported: tuple[DistanceStrategy, ...] | None = None, store: str = "the store"
) -> DistanceStrategy:
    """``value`` (ours, LangChain's enum member, or a name) as a :class:`DistanceStrategy`.

    ``supported`` lists what the calling store can compute; anything else is a
    ``ConfigurationError`` naming the choices.
    """
    raw = getattr(value, "value", value)
    key = str(raw).strip().upper()
    found = _ALIASES.get(key)
    if found is None:
        try:
            found = DistanceStrategy(key)
        except ValueError:
            found = None
    allowed = supported or tuple(DistanceStrategy)
    if found is None or found not in allowed:
        names = ", ".join(s.value for s in allowed)
        raise ConfigurationError(
            f"distance_strategy {value!r} is not supported by {store}; use one of {names} "
            "(DistanceStrategy members or their names)"
        )
    return found


def higher_is_better(strategy: DistanceStrategy) -> bool:
    """True when a larger raw score means a closer match."""
    return strategy not in DISTANCES


def relevance(strategy: DistanceStrategy, score: float) -> float:
    """A raw score as a relevance in [0, 1] (1 is best); the cosine for unit-length vectors.

    ``EUCLIDEAN_DISTANCE``: ``1 - d2 / 2``; ``COSINE``: ``1 - d``; ``MAX_INNER_PRODUCT``,
    ``COSINE_SIMILARITY`` and ``DOT_PRODUCT``: the score itself; each clipped to [0, 1].
    """
    if strategy is DistanceStrategy.EUCLIDEAN_DISTANCE:
        value = 1.0 - score / 2.0
    elif strategy is DistanceStrategy.COSINE:
        value = 1.0 - score
    else:
        value = score
    return min(1.0, max(0.0, float(value)))


__all__ = [
    "DISTANCES",
    "FROM_STORED_NAME",
    "STORED_NAMES",
    "VECTOR_STRATEGIES",
    "DistanceStrategy",
    "distance_strategy",
    "higher_is_better",
    "relevance",
]
