"""The SQL of PGVectorStore's writes: bulk ``COPY ... (FORMAT BINARY)``, upsert by id, delete.

Statements and the functions that run them on a connection (the store's methods that call
them are in :mod:`ragkit.stores.pgvector._write_methods`). A statement sequence needed by the
sync and the async store alike is written once as steps (:func:`delete_steps`), run by
:func:`run_sql` or :func:`arun_sql`.

Every write runs in one transaction that first takes the collection's transaction-scoped
advisory lock, so concurrent writers of one collection queue up (readers never wait) and a
reader sees either none or all of a write. Rows go in with binary ``COPY`` straight into the
``documents`` table (no staging table): ids that already exist are deleted first in the same
transaction, which makes ``add`` an upsert by id, as in ``langchain-postgres``. Sequence
numbers are reserved as one block, so the lexical postings can reference the new rows without
reading them back.

Example:
    >>> # with client.transaction() as conn: write_rows(conn, layout, batch, lexical)
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ragkit.errors import StoreInputError
from ragkit.stores.pgvector.lexical import Terms

T = TypeVar("T")

#: A write of at least this many rows that is a tenth or more of the collection runs ANALYZE.
ANALYZE_MIN_ROWS = 1000
#: First key of the two-key advisory locks of ragkit's PostgreSQL writers ("rk" + 1).
LOCK_CLASS = 0x726B01


@dataclass
class Batch:
    """Checked rows ready to write (all lists of equal length)."""

    ids: list[str]
    contents: list[str]
    raws: list[bytes | None]
    metadatas: list[str]  # JSON text
    vectors: list[memoryview]  # pgvector binary values
    terms: Terms | None = None


#: One statement and its parameters.
Statement = tuple[Any, Sequence[Any]]
#: Statements written once for both drivers: each is sent the rows of the one before (``[]``
#: when it returns none); see :func:`run_sql` and :func:`arun_sql`.
SqlSteps = Generator[Statement, list[tuple[Any, ...]], T]


def run_sql(conn: Any, steps: SqlSteps[T]) -> T:
    """Run ``steps`` on the sync connection ``conn``; their result."""
    try:
        statement = next(steps)
        while True:
            cursor = conn.execute(*statement)
            statement = steps.send(cursor.fetchall() if cursor.description is not None else [])
    except StopIteration as done:
        return cast("T", done.value)


async def arun_sql(conn: Any, steps: SqlSteps[T]) -> T:
    """Run ``steps`` on the async connection ``conn``; their result."""
    try:
        statement = next(steps)
        while True:
            cursor = await conn.execute(*statement)
            rows = await cursor.fetchall() if cursor.description is not None else []
            statement = steps.send(rows)
    except StopIteration as done:
        return cast("T", done.value)


def lock_collection(conn: Any, layout: Any) -> None:
    """Take the collection's write lock until the end of the transaction."""
    conn.execute(*_lock(layout))


def _lock(layout: Any) -> Statement:
    return (
        "SELECT pg_advisory_xact_lock(%s, %s::regclass::oid::integer)",
        (LOCK_CLASS, layout.docs_name),
    )


def _existing(layout: Any, ids: Sequence[str]) -> Statement:
    from psycopg import sql

    return sql.SQL("SELECT id FROM {} WHERE id = ANY(%s::text[])").format(layout.docs), (list(ids),)


def existing_ids(conn: Any, layout: Any, ids: Sequence[str]) -> list[str]:
    return [r[0] for r in conn.execute(*_existing(layout, ids)).fetchall()]


def delete_rows(conn: Any, layout: Any, ids: Sequence[str], lexical: str | None) -> int:
    """Delete ``ids`` (and their postings); update the counters. Returns how many went."""
    return run_sql(conn, delete_rows_steps(layout, ids, lexical))


def delete_rows_steps(layout: Any, ids: Sequence[str], lexical: str | None) -> SqlSteps[int]:
    """The statements of :func:`delete_rows`."""
    from psycopg import sql

    rows = yield (
        sql.SQL(
            "WITH gone AS (DELETE FROM {docs} WHERE id = ANY(%s::text[]) RETURNING seq{len}) "
            "SELECT count(*), {total}, array_agg(seq) FROM gone"
        ).format(
            docs=layout.docs,
            len=sql.SQL(", doc_len") if lexical else sql.SQL(""),
            total=sql.SQL("coalesce(sum(doc_len), 0)") if lexical else sql.SQL("0"),
        ),
        (list(ids),),
    )
    count, total, seqs = int(rows[0][0]), int(rows[0][1]), rows[0][2] or []
    if not count:
        return 0
    if lexical == "bm25":
        yield (
            sql.SQL("DELETE FROM {} WHERE seq = ANY(%s::bigint[])").format(layout.postings),
            (seqs,),
        )
    yield (
        sql.SQL("UPDATE {} SET doc_count = doc_count - %s, total_len = total_len - %s").format(
            layout.meta
        ),
        (count, total),
    )
    return count


def delete_steps(layout: Any, ids: list[str], lexical: str | None) -> SqlSteps[None]:
    """A whole ``delete(ids)`` (call inside a transaction): lock the collection, refuse ids it
    does not hold (StoreInputError naming them; nothing is deleted), delete the rows."""
    yield _lock(layout)
    present = {r[0] for r in (yield _existing(layout, ids))}
    missing = [x for x in ids if x not in present]
    if missing:
        raise StoreInputError(
            f"ids not in the store: {missing[:10]}{' ...' if len(missing) > 10 else ''}"
            "; nothing was deleted"
        )
    yield from delete_rows_steps(layout, ids, lexical)


def reserve_seqs(conn: Any, layout: Any, n: int) -> int:
    """Reserve ``n`` consecutive sequence numbers (under the collection lock); the first one."""
    last = conn.execute(
        "SELECT setval(s, nextval(s) + %s - 1) FROM pg_get_serial_sequence(%s, 'seq') AS s",
        (n, layout.docs_name),
    ).fetchone()[0]
    return int(last) - n + 1


def copy_rows(conn: Any, layout: Any, batch: Batch, first_seq: int, lexical: str | None) -> None:
    """Binary COPY of the batch into ``documents`` (and ``postings``)."""
    from psycopg import sql

    columns = ["seq", "id", "content", "content_raw", "metadata", "embedding"]
    types = ["int8", "text", "text", "bytea", "bytea", "bytea"]
    lengths = batch.terms.lengths if batch.terms is not None else None
    if lexical:
        columns.append("doc_len")
        types.append("int4")
    if lexical == "tsvector":
        columns.append("tsv")
        types.append("bytea")
    # COPY takes no parameters, so its names are plain (not %-doubled: see schema.ident)
    statement = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
        sql.Identifier(layout.schema_name, "documents"),
        sql.SQL(", ").join(map(sql.Identifier, columns)),
    )
    cursor = conn.cursor()
    with cursor.copy(statement) as copy:
        copy.set_types(types)
        write = copy.write_row
        if not lexical:
            for i, (doc_id, content, raw, meta, vec) in enumerate(
                zip(batch.ids, batch.contents, batch.raws, batch.metadatas, batch.vectors)
            ):
                write((first_seq + i, doc_id, content, raw, b"\x01" + meta.encode(), vec))
        else:
            assert batch.terms is not None and lengths is not None
            for i, (doc_id, content, raw, meta, vec) in enumerate(
                zip(batch.ids, batch.contents, batch.raws, batch.metadatas, batch.vectors)
            ):
                row: tuple[Any, ...] = (
                    first_seq + i,
                    doc_id,
                    content,
                    raw,
                    b"\x01" + meta.encode(),
                    vec,
                    lengths[i],
                )
                if lexical == "tsvector":
                    row += (tsvector_binary(batch.terms, i),)
                write(row)
    if lexical == "bm25":
        assert batch.terms is not None and lengths is not None
        statement = sql.SQL("COPY {} (term, seq, tf, dl) FROM STDIN (FORMAT BINARY)").format(
            sql.Identifier(layout.schema_name, "postings")
        )
        with cursor.copy(statement) as copy:
            copy.set_types(["text", "int8", "int4", "int4"])
            write = copy.write_row
            for i in range(len(batch.ids)):
                seq, dl = first_seq + i, lengths[i]
                for term, tf in batch.terms.postings(i):
                    write((term, seq, tf, dl))
    total = sum(lengths) if lengths is not None else 0
    count = conn.execute(
        sql.SQL(
            "UPDATE {} SET doc_count = doc_count + %s, total_len = total_len + %s "
            "RETURNING doc_count"
        ).format(layout.meta),
        (len(batch.ids), total),
    ).fetchone()[0]
    if len(batch.ids) >= ANALYZE_MIN_ROWS and len(batch.ids) * 10 >= int(count):
        # a bulk load: give the planner statistics now rather than when autovacuum gets to it
        conn.execute(sql.SQL("ANALYZE {}").format(layout.docs), ())
        if lexical == "bm25":
            conn.execute(sql.SQL("ANALYZE {}").format(layout.postings), ())


def tsvector_binary(terms: Terms, row: int) -> bytes:
    """PostgreSQL's binary ``tsvector`` (count, then per lexeme: name NUL, npos, positions)."""
    import struct

    positions: dict[str, list[int]] = {}
    for i, term in enumerate(terms.tokens[row], start=1):
        slot = positions.setdefault(term, [])
        if len(slot) < 256 and (not slot or slot[-1] != min(i, 16383)):
            slot.append(min(i, 16383))
    parts = [struct.pack(">i", len(positions))]
    for term in sorted(positions, key=lambda t: t.encode()):  # the receiver re-sorts if needed
        pos = positions[term]
        parts.append(term.encode() + b"\x00" + struct.pack(f">H{len(pos)}H", len(pos), *pos))
    return b"".join(parts)
