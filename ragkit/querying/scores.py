"""What the ``score`` of a search result means, per retriever (every query path names it).

Retrievers give numbers on unrelated scales: cosine similarity (vectors),
BM25 (keywords), reciprocal-rank fusion (hybrid, multi-query) and a
cross-encoder's relevance (``--rerank``).
The command names the kind next to every score, in text and in ``--json``.

Example:
    >>> kind = SCORE_KINDS["rrf"]
    >>> kind.label, kind.higher_is_better
    ('reciprocal-rank fusion (RRF)', True)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ScoreKind:
    """One scale: a short name, a label and how to read it."""

    name: str
    label: str
    higher_is_better: bool | None
    description: str
    hint: str = ""
    """A few words for the text output."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


SCORE_KINDS = {
    "cosine": ScoreKind(
        "cosine",
        "cosine similarity",
        True,
        "similarity of the query and passage vectors, from -1 to 1; with the local model, "
        "related passages usually score 0.3 to 0.8",
        "from -1 to 1; related passages often 0.3-0.8",
    ),
    "cosine_distance": ScoreKind(
        "cosine_distance",
        "cosine distance",
        False,
        "one minus the cosine similarity of the query and passage vectors, from 0 to 2: "
        "lower is closer",
        "from 0 to 2; 0 for identical directions",
    ),
    "inner_product": ScoreKind(
        "inner_product",
        "inner product",
        True,
        "dot product of the query and passage vectors (the cosine for unit-length vectors)",
        "the cosine for unit-length vectors",
    ),
    "euclidean": ScoreKind(
        "euclidean",
        "squared Euclidean distance",
        False,
        "distance between the query and passage vectors: lower is closer",
        "0 for identical vectors",
    ),
    "bm25": ScoreKind(
        "bm25",
        "BM25",
        True,
        "keyword relevance: 0 when no query word occurs, unbounded above; grows with rare "
        "query words and longer queries, so compare scores only within one query",
        "keyword relevance, unbounded; compare within one query only",
    ),
    "rrf": ScoreKind(
        "rrf",
        "reciprocal-rank fusion (RRF)",
        True,
        "sum over the fused rankings of weight / (c + rank): only the ranks count, not the "
        "members' own scores; compare scores only within one query",
        "only the ranks in the fused lists count; compare within one query only",
    ),
    "rerank": ScoreKind(
        "rerank",
        "cross-encoder relevance",
        True,
        "the reranking model's score of the (question, passage) pair, read together: from 0 to "
        "1 for a model with a sigmoid output, raw logits otherwise; compare within one query",
        "the reranker's judgement of each pair; compare within one query only",
    ),
    "none": ScoreKind(
        "none",
        "no score",
        None,
        "MMR orders passages by relevance and diversity together and gives no score",
        "ranked by relevance and diversity together",
    ),
}
_VECTOR = {  # DistanceStrategy values (a str enum) -> score kinds
    "COSINE_SIMILARITY": "cosine",
    "COSINE": "cosine_distance",
    "MAX_INNER_PRODUCT": "inner_product",
    "EUCLIDEAN_DISTANCE": "euclidean",
}


def score_kind(retriever: str, distance_strategy: str = "COSINE_SIMILARITY") -> ScoreKind:
    """The scale of ``retriever``'s scores (``distance_strategy``: the index's vector store's)."""
    if retriever in ("similarity", "dense", "parent"):
        return SCORE_KINDS[_VECTOR.get(str(distance_strategy), "cosine")]
    if retriever == "mmr":
        return SCORE_KINDS["none"]
    if retriever == "bm25":
        return SCORE_KINDS["bm25"]
    return SCORE_KINDS["rrf"]  # hybrid, multi-query (RAG-fusion)
