"""Distance strategies mapped to pgvector operators, index operator classes and raw scores.

The strategies (:class:`~ragkit.stores.distance.DistanceStrategy`) and the raw score each
gives are FaissStore's, so a score means the same in both stores:

=========================  ========  ============  =======================  ======================
strategy                   operator  opclass       raw score                stored as
=========================  ========  ============  =======================  ======================
``COSINE_SIMILARITY`` (*)  ``<#>``   ``*_ip_ops``  ``cos`` (higher best)    ``cosine``
``COSINE``                 ``<#>``   ``*_ip_ops``  ``1 - cos`` (= ``<=>``)  ``cosine_distance``
``MAX_INNER_PRODUCT``      ``<#>``   ``*_ip_ops``  inner product            ``max_inner_product``
``EUCLIDEAN_DISTANCE``     ``<->``   ``*_l2_ops``  squared L2 distance      ``euclidean_distance``
=========================  ========  ============  =======================  ======================

(*) PGVectorStore's default, as FaissStore's. Under both cosine strategies vectors are
L2-normalised on the way in (as FaissStore does), so pgvector's inner-product operator ranks
exactly as its cosine operator ``<=>`` would, a little faster, and a zero vector has a defined
score (``<=>`` gives NaN for it); ``COSINE``'s score is what ``<=>`` returns. ``<->`` is the
L2 distance; it is squared for the score, as LangChain's FAISS and FaissStore report it.
The operator class is ``vector_*`` or ``halfvec_*`` after the column type. The collection row
keeps the "stored as" name, the one a FaissStore manifest uses.

Example:
    >>> m = metric("COSINE")
    >>> m.operator, m.opclass("halfvec"), m.score(-0.75)
    ('<#>', 'halfvec_ip_ops', 0.25)
    >>> metric(None).strategy, metric("cosine_similarity").score(-0.75)
    (<DistanceStrategy.COSINE_SIMILARITY: 'COSINE_SIMILARITY'>, 0.75)
"""

from __future__ import annotations

from dataclasses import dataclass

from ragkit.stores.distance import (
    FROM_STORED_NAME,
    STORED_NAMES,
    VECTOR_STRATEGIES,
    DistanceStrategy,
    distance_strategy,
    higher_is_better,
)

#: The strategies PGVectorStore computes (DOT_PRODUCT and JACCARD are refused by name).
SUPPORTED = VECTOR_STRATEGIES
DEFAULT = DistanceStrategy.COSINE_SIMILARITY


@dataclass(frozen=True)
class Metric:
    strategy: DistanceStrategy
    operator: str
    ops: str  # operator class suffix
    normalize: bool

    def opclass(self, vector_type: str) -> str:
        return f"{vector_type}_{self.ops}"

    @property
    def stored(self) -> str:
        """The strategy's name in the collection row."""
        return STORED_NAMES[self.strategy]

    @property
    def higher_is_better(self) -> bool:
        return higher_is_better(self.strategy)

    def score(self, distance: float) -> float:
        """pgvector's operator result -> FaissStore's raw score for the strategy."""
        if self.strategy is DistanceStrategy.EUCLIDEAN_DISTANCE:
            return float(distance) * float(distance)
        if self.strategy is DistanceStrategy.COSINE:
            return 1.0 + float(distance)  # <#> is -cos for unit vectors
        return -float(distance)


_METRICS = {
    DistanceStrategy.COSINE_SIMILARITY: Metric(
        DistanceStrategy.COSINE_SIMILARITY, "<#>", "ip_ops", True
    ),
    DistanceStrategy.COSINE: Metric(DistanceStrategy.COSINE, "<#>", "ip_ops", True),
    DistanceStrategy.MAX_INNER_PRODUCT: Metric(
        DistanceStrategy.MAX_INNER_PRODUCT, "<#>", "ip_ops", False
    ),
    DistanceStrategy.EUCLIDEAN_DISTANCE: Metric(
        DistanceStrategy.EUCLIDEAN_DISTANCE, "<->", "l2_ops", False
    ),
}


def metric(strategy: object) -> Metric:
    """The :class:`Metric` of a strategy (ours, LangChain's, langchain-postgres', or a name).

    ``None`` is the default (``COSINE_SIMILARITY``); langchain-postgres' ``"inner"`` is
    ``MAX_INNER_PRODUCT``; anything unsupported is a ``ConfigurationError`` naming the choices.
    """
    if strategy is None:
        return _METRICS[DEFAULT]
    if str(getattr(strategy, "value", strategy)).lower() == "inner":  # langchain-postgres' name
        return _METRICS[DistanceStrategy.MAX_INNER_PRODUCT]
    return _METRICS[distance_strategy(strategy, SUPPORTED, "PGVectorStore")]


def stored_metric(name: str) -> Metric:
    """The :class:`Metric` a collection row names (see :data:`~ragkit.stores.distance.STORED_NAMES`)."""
    return _METRICS[FROM_STORED_NAME[name]]
