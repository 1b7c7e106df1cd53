"""Writes of PGVectorStore: bulk ``COPY ... (FORMAT BINARY)``, upsert by id, delete, counters.

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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.stores.pgvector.lexical import Terms

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


def lock_collection(conn: Any, layout: Any) -> None:
    """Take the collection's write lock until the end of the transaction."""
    conn.execute(
        "SELECT pg_advisory_xact_lock(%s, %s::regclass::oid::integer)",
        (LOCK_CLASS, layout.docs_name),
    )


def existing_ids(conn: Any, layout: Any, ids: Sequence[str]) -> list[str]:
    from psycopg import sql

    rows = conn.execute(
        sql.SQL("SELECT id FROM {} WHERE id = ANY(%s::text[])").format(layout.docs), (list(ids),)
    ).fetchall()
    return [r[0] for r in rows]


def delete_rows(conn: Any, layout: Any, ids: Sequence[str], lexical: str | None) -> int:
    """Delete ``ids`` (and their postings); update the counters. Returns how many went."""
    from psycopg import sql

    row = conn.execute(
        sql.SQL(
            "WITH gone AS (DELETE FROM {docs} WHERE id = ANY(%s::text[]) RETURNING seq{len}) "
            "SELECT count(*), {total}, array_agg(seq) FROM gone"
        ).format(
            docs=layout.docs,
            len=sql.SQL(", doc_len") if lexical else sql.SQL(""),
            total=sql.SQL("coalesce(sum(doc_len), 0)") if lexical else sql.SQL("0"),
        ),
        (list(ids),),
    ).fetchone()
    count, total, seqs = int(row[0]), int(row[1]), row[2] or []
    if not count:
        return 0
    if lexical == "bm25":
        conn.execute(
            sql.SQL("DELETE FROM {} WHERE seq = ANY(%s::bigint[])").format(layout.postings),
            (seqs,),
        )
    conn.execute(
        sql.SQL("UPDATE {} SET doc_count = doc_count - %s, total_len = total_len - %s").format(
            layout.meta
        ),
        (count, total),
    )
    return count


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
