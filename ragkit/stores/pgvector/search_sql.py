"""The SQL texts of PGVectorStore's searches, built once per shape with ``psycopg.sql``.

Values are always parameters; the store methods that run them are in
:mod:`ragkit.stores.pgvector._search_methods` and :mod:`ragkit.stores.pgvector._hybrid`.

Nearest-neighbour queries come in two forms:

- exact (no ANN index, or ``exact=True``): ``ORDER BY distance + 0, seq``; the ``+ 0`` keeps
  the planner off any ANN index, ``seq`` breaks ties by insertion order (as FaissStore does);
- approximate (an HNSW or IVFFlat index): ``ORDER BY distance LIMIT k`` so pgvector's index
  scan serves it (with iterative scans on, filters still get ``k`` rows), re-sorted by
  distance in an outer query because IVFFlat's iterative scan may return rows slightly out of
  order.

``k`` is written into the statement as a literal (a checked ``int``), not sent as a parameter:
the store prepares each statement, and with ``LIMIT $n`` PostgreSQL's generic plan cannot see
``k``, so it keeps planning every execution anew (a custom plan per call) where ``LIMIT 10``
is planned once.

Example:
    >>> # sql = knn_sql(SqlTarget(layout, metric, "vector"), where, KnnShape(limit=10, exact=True))
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from ragkit.errors import InvalidQueryError
from ragkit.stores.pgvector.codec import DOC_COLUMNS
from ragkit.stores.pgvector.distance import Metric


@dataclass(frozen=True)
class SqlTarget:
    """The table layout, distance metric and vector column type a statement is written for."""

    layout: Any
    metric: Metric
    vector_type: str


@dataclass(frozen=True)
class KnnShape:
    """How a nearest-neighbour statement reads: ``limit`` (a literal), exact or ANN scan,
    with the stored vectors or not; ``resort`` wraps the ANN query and sorts its rows again
    (IVFFlat's relaxed iterative scan)."""

    limit: int
    exact: bool
    with_vectors: bool = False
    resort: bool = False


def knn_sql(target: SqlTarget, where: Any, shape: KnnShape) -> Any:
    """Parameters: the query vector, then ``where``'s; ``shape.limit`` is a literal."""
    from psycopg import sql

    layout, metric, vector_type = target.layout, target.metric, target.vector_type
    limit, exact = shape.limit, shape.exact
    with_vectors, resort = shape.with_vectors, shape.resort

    top = sql.Literal(_limit(limit))
    extra = sql.SQL(", d.embedding") if with_vectors else sql.SQL("")
    columns = sql.SQL(DOC_COLUMNS)
    distance = sql.SQL("d.embedding {} %s::{}").format(
        sql.SQL(metric.operator), sql.SQL(vector_type)
    )
    if exact:
        outer = sql.SQL(", s.embedding") if with_vectors else sql.SQL("")
        return sql.SQL(
            "SELECT s.id, s.content, s.content_raw, s.metadata, s.dist{outer} FROM "
            "(SELECT d.seq, {columns}, {distance} AS dist{extra} FROM {docs} d WHERE {where}) s "
            "ORDER BY s.dist + 0, s.seq LIMIT {top}"
        ).format(
            top=top,
            outer=outer,
            columns=columns,
            distance=distance,
            extra=extra,
            docs=layout.docs,
            where=where,
        )
    inner = sql.SQL(
        "SELECT {columns}, {distance} AS dist{extra} FROM {docs} d WHERE {where} "
        "ORDER BY dist LIMIT {top}"
    ).format(
        top=top, columns=columns, distance=distance, extra=extra, docs=layout.docs, where=where
    )
    if not resort:
        return inner
    return sql.SQL("WITH s AS MATERIALIZED ({}) SELECT * FROM s ORDER BY dist").format(inner)


def _limit(value: int) -> int:
    """``value`` as a LIMIT literal (callers check ``k`` first; this guards the SQL text)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InvalidQueryError(f"k must be an integer >= 0, got {value!r}")
    return int(value)


def knn_batch_sql(layout: Any, metric: Metric, vector_type: str, where: Any, *, exact: bool) -> Any:
    """Many query vectors in one statement (one LATERAL search per vector).

    Parameters: the query vectors (an array), then ``where``'s, then the limit. Rows carry
    the 1-based query number ``qi`` first.
    """
    from psycopg import sql

    distance = sql.SQL("d.embedding {} q.v").format(sql.SQL(metric.operator))
    order = (
        sql.SQL("ORDER BY ({}) + 0, d.seq").format(distance)
        if exact
        else sql.SQL("ORDER BY {}").format(distance)
    )
    return sql.SQL(
        "SELECT q.qi, s.* FROM unnest(%s::{vt}[]) WITH ORDINALITY AS q(v, qi) "
        "CROSS JOIN LATERAL (SELECT {columns}, {distance} AS dist FROM {docs} d WHERE {where} "
        "{order} LIMIT %s) s ORDER BY q.qi, s.dist"
    ).format(
        vt=sql.SQL(vector_type),
        columns=sql.SQL(DOC_COLUMNS),
        distance=distance,
        docs=layout.docs,
        where=where,
        order=order,
    )


def by_ids_sql(layout: Any) -> Any:
    from psycopg import sql

    return sql.SQL("SELECT {} FROM {} d WHERE d.id = ANY(%s::text[])").format(
        sql.SQL(DOC_COLUMNS), layout.docs
    )


def hybrid_sql(target: SqlTarget, lexical_top: Any, where: Any, *, exact: bool) -> Any:
    """Weighted RRF of the dense and lexical rankings, fused in the database (one round trip).

    Parameters: the lexical ranking's (query, where, limit), the query vector, ``where``'s, the
    dense limit, then ``w_lex, c, w_dense, c, k``. Ties keep first appearance (lexical list
    first), as :func:`~ragkit.retrievers.reciprocal_rank_fusion` does.
    """
    from psycopg import sql

    layout, metric, vector_type = target.layout, target.metric, target.vector_type

    order = sql.SQL("x.dist + 0, x.seq" if exact else "x.dist")
    return sql.SQL(
        "WITH lex AS MATERIALIZED ({lexical}), "
        "dense AS MATERIALIZED (SELECT s.seq, row_number() OVER (ORDER BY s.dist, s.seq) AS r "
        "FROM (SELECT x.seq, x.dist FROM (SELECT d.seq, d.embedding {op} %s::{vt} AS dist "
        "FROM {docs} d WHERE {where}) x ORDER BY {order} LIMIT %s) s), "
        "fused AS (SELECT u.seq, sum(u.w) AS score, min(u.pos) AS pos FROM ("
        "SELECT seq, %s::float8 / (r + %s::float8) AS w, r AS pos FROM lex UNION ALL "
        "SELECT seq, %s::float8 / (r + %s::float8), 1000000000 + r FROM dense) u "
        "GROUP BY u.seq ORDER BY score DESC, pos LIMIT %s) "
        "SELECT {columns}, f.score FROM fused f JOIN {docs} d ON d.seq = f.seq "
        "ORDER BY f.score DESC, f.pos"
    ).format(
        lexical=lexical_top,
        order=order,
        op=sql.SQL(metric.operator),
        vt=sql.SQL(vector_type),
        docs=layout.docs,
        where=where,
        columns=sql.SQL(DOC_COLUMNS),
    )


def lexical_docs_sql(layout: Any, lexical_top: Any) -> Any:
    """The documents of a lexical ranking, best first (parameters: the ranking's)."""
    from psycopg import sql

    return sql.SQL(
        "SELECT {columns}, t.score FROM ({top}) t JOIN {docs} d ON d.seq = t.seq ORDER BY t.r"
    ).format(columns=sql.SQL(DOC_COLUMNS), top=lexical_top, docs=layout.docs)
