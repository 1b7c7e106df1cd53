"""Distance strategies mapped to pgvector operators, index operator classes and raw scores.

The strategies and raw scores are FaissStore's (LangChain's ``DistanceStrategy`` names work):

============================  ==========  ====================  ==========================
strategy                      operator    index operator class  raw score (as FaissStore)
============================  ==========  ====================  ==========================
``cosine`` (default)          ``<#>``     ``vector_ip_ops``     cosine similarity
``max_inner_product``         ``<#>``     ``vector_ip_ops``     inner product
``euclidean_distance``        ``<->``     ``vector_l2_ops``     squared L2 distance
============================  ==========  ====================  ==========================

Under ``cosine`` vectors are L2-normalised on the way in (as FaissStore does), so pgvector's
inner-product operator ranks exactly as its cosine operator ``<=>`` would, a little faster and
with a defined score (0) for zero vectors. ``halfvec`` columns use the ``halfvec_*`` classes.

Example:
    >>> m = metric("COSINE")
    >>> m.operator, m.opclass("halfvec"), m.score(-0.25)
    ('<#>', 'halfvec_ip_ops', 0.25)
"""

from __future__ import annotations

from dataclasses import dataclass

from ragkit.stores._faiss_index import COSINE, EUCLIDEAN, MAX_INNER_PRODUCT, distance_strategy


@dataclass(frozen=True)
class Metric:
    strategy: str
    operator: str
    ops: str  # operator class suffix
    normalize: bool

    def opclass(self, vector_type: str) -> str:
        return f"{vector_type}_{self.ops}"

    @property
    def higher_is_better(self) -> bool:
        return self.strategy != EUCLIDEAN

    def score(self, distance: float) -> float:
        """pgvector's distance -> FaissStore's raw score."""
        if self.strategy == EUCLIDEAN:
            return float(distance) * float(distance)
        return -float(distance)


_METRICS = {
    COSINE: Metric(COSINE, "<#>", "ip_ops", True),
    MAX_INNER_PRODUCT: Metric(MAX_INNER_PRODUCT, "<#>", "ip_ops", False),
    EUCLIDEAN: Metric(EUCLIDEAN, "<->", "l2_ops", False),
}


def metric(strategy: object) -> Metric:
    """The :class:`Metric` of a strategy name (ours or LangChain's; ValueError if unknown)."""
    if str(getattr(strategy, "value", strategy)).lower() == "inner":  # langchain-postgres' name
        return _METRICS[MAX_INNER_PRODUCT]
    return _METRICS[distance_strategy(strategy)]
