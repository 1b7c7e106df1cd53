"""The lexical half of hybrid search, inside PostgreSQL: ragkit's analyzer, two ways to rank.

Texts go through ragkit's :class:`~ragkit.retrievers.analyzer.Analyzer` (lowercase, word
tokens, stopwords, Snowball stems) in Python, at write and query time alike, so the terms are
exactly those of :class:`~ragkit.retrievers.BM25Retriever`. Two storage and ranking modes:

- ``"bm25"`` (the default for hybrid search): a ``postings`` table of ``(term, seq, tf, dl)``
  and BM25 (Lucene's idf ``ln(1 + (N - df + 0.5) / (df + 0.5))``, ``k1`` and ``b`` as
  ``BM25Retriever``) computed in SQL from it, with ``N`` and the total length kept in the
  ``collection`` row by every write.
- ``"tsvector"``: the terms as a ``tsvector`` (with positions) under a GIN index, ranked by
  PostgreSQL's ``ts_rank`` (term frequency with length normalisation, no idf).

``benchmarks/postgres_eval.py`` measures both on SciFact; ``"bm25"`` is the default because it
scores higher (see the README table).

Example:
    >>> terms = Terms.of(["The cyclists were riding", "solar panels"], lambda t: t.lower().split())
    >>> terms.lengths, terms.postings(0)
    ([4, 2], [('the', 1), ('cyclists', 1), ('were', 1), ('riding', 1)])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_K1 = 1.5
DEFAULT_B = 0.75
MAX_TSV_POSITION = 16383  # PostgreSQL's limit for tsvector positions
MAX_TSV_POSITIONS_PER_TERM = 256
MAX_LEXEME_BYTES = 2046


def default_analyzer(config: dict[str, Any] | None) -> Callable[[str], list[str]]:
    from ragkit.retrievers.analyzer import Analyzer

    return Analyzer.from_config(config) if config else Analyzer()


def check_bm25_params(params: dict[str, Any] | None) -> dict[str, float]:
    from ragkit.errors import ConfigurationError

    params = dict(params or {})
    k1 = params.pop("k1", DEFAULT_K1)
    b = params.pop("b", DEFAULT_B)
    method = params.pop("method", "lucene")
    if params or method != "lucene":
        raise ConfigurationError(
            "PGVectorStore bm25_params accepts k1 and b (Lucene's BM25); got "
            f"{sorted(params) + ([f'method={method!r}'] if method != 'lucene' else [])}"
        )
    if not (isinstance(k1, (int, float)) and k1 >= 0):
        raise ConfigurationError(f"bm25_params['k1'] must be >= 0, got {k1!r}")
    if not (isinstance(b, (int, float)) and 0 <= b <= 1):
        raise ConfigurationError(f"bm25_params['b'] must be between 0 and 1, got {b!r}")
    return {"k1": float(k1), "b": float(b)}


@dataclass
class Terms:
    """The analysed terms of a batch of texts."""

    tokens: list[list[str]]

    @classmethod
    def of(cls, texts: Sequence[str], analyzer: Callable[[str], list[str]]) -> Terms:
        return cls([[t for t in analyzer(text) if _storable(t)] for text in texts])

    @property
    def lengths(self) -> list[int]:
        return [len(t) for t in self.tokens]

    def postings(self, row: int) -> list[tuple[str, int]]:
        """``(term, tf)`` of one text, terms in order of first appearance."""
        return list(Counter(self.tokens[row]).items())

    def tsvector(self, row: int) -> str:
        """A ``tsvector`` literal with 1-based positions (capped as PostgreSQL caps them)."""
        positions: dict[str, list[int]] = {}
        for i, term in enumerate(self.tokens[row], start=1):
            slot = positions.setdefault(term, [])
            if len(slot) < MAX_TSV_POSITIONS_PER_TERM:
                slot.append(min(i, MAX_TSV_POSITION))
        return " ".join(
            f"{quote_lexeme(term)}:{','.join(map(str, sorted(set(pos))))}"
            for term, pos in positions.items()
        )


def _storable(term: str) -> bool:
    if not term or "\x00" in term:
        return False
    try:
        return len(term.encode("utf-8")) <= MAX_LEXEME_BYTES
    except UnicodeEncodeError:
        return False


def quote_lexeme(term: str) -> str:
    """A lexeme quoted for tsvector/tsquery input (quotes doubled, backslashes escaped)."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def query_terms(query: str, analyzer: Callable[[str], list[str]]) -> list[str]:
    """The query's terms, repeats kept (a repeated term counts twice, as in BM25Retriever)."""
    return [t for t in analyzer(query) if _storable(t)]


def tsquery(terms: Sequence[str]) -> str:
    """An OR-query over ``terms`` in tsquery input syntax."""
    return " | ".join(quote_lexeme(t) for t in dict.fromkeys(terms))


def bm25_top_sql(layout: Any, where: Any | None) -> Any:
    """Ranked ``(seq, score, r)`` of the documents matching a term (and the filter ``where``).

    Each distinct query term reads its own postings through the primary-key index (a LATERAL
    per term, so the plan does not depend on table statistics); its document frequency is the
    number of those postings, counted before the filter. Parameters, in order: the terms
    (text[]), then ``where``'s (when given), then the limit. ``k1`` and ``b`` come from the
    collection row.
    """
    from psycopg import sql

    join = (
        sql.SQL("JOIN {docs} d ON d.seq = p.seq WHERE {where} ").format(
            docs=layout.docs, where=where
        )
        if where is not None
        else sql.SQL("")
    )
    return sql.SQL(
        "SELECT s.seq, s.score, row_number() OVER (ORDER BY s.score DESC, s.seq) AS r FROM ("
        "SELECT p.seq, sum(q.qtf * ln(1 + (st.n - p.df + 0.5) / (p.df + 0.5)) * p.tf * (st.k1 + 1)"
        " / (p.tf + st.k1 * (1 - st.b + st.b * p.dl / st.avgdl))) AS score "
        "FROM (SELECT t AS term, count(*) AS qtf FROM unnest(%s::text[]) t GROUP BY t) q "
        "CROSS JOIN LATERAL (SELECT p0.seq, p0.tf, p0.dl, count(*) OVER ()::float8 AS df "
        "  FROM {postings} p0 WHERE p0.term = q.term) p "
        "CROSS JOIN (SELECT doc_count::float8 AS n, "
        "  coalesce((bm25_params->>'k1')::float8, 1.5) AS k1, "
        "  coalesce((bm25_params->>'b')::float8, 0.75) AS b, CASE WHEN doc_count > 0 AND "
        "  total_len > 0 THEN total_len::float8 / doc_count ELSE 1 END AS avgdl FROM {meta}) st "
        "{join}GROUP BY p.seq) s ORDER BY s.score DESC, s.seq LIMIT %s"
    ).format(meta=layout.meta, postings=layout.postings, join=join)


def tsvector_top_sql(layout: Any, where: Any) -> Any:
    """Ranked ``(seq, score, r)`` by ``ts_rank`` (normalisation 1: divided by 1 + log(length)).

    Parameters: the tsquery text, then ``where``'s, then the limit.
    """
    from psycopg import sql

    return sql.SQL(
        "SELECT s.seq, s.score, row_number() OVER (ORDER BY s.score DESC, s.seq) AS r FROM ("
        "SELECT d.seq, ts_rank(d.tsv, q.q, 1)::float8 AS score "
        "FROM {docs} d, (SELECT %s::tsquery AS q) q WHERE d.tsv @@ q.q AND {where}) s "
        "ORDER BY s.score DESC, s.seq LIMIT %s"
    ).format(docs=layout.docs, where=where)
