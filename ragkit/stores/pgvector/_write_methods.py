"""PGVectorStore's write methods: add (an upsert by id, one binary COPY) and delete.

The SQL they run is in :mod:`ragkit.stores.pgvector.write_sql`; ``add_texts``,
``add_vectors`` and the ``from_*`` constructors are
:class:`~ragkit.stores.vector_adds.VectorAddsMixin`'s, over ``_add`` here.

Everything is checked and encoded before the first byte is sent (errors name the row); each
write is one transaction under the collection's advisory lock (see
:mod:`ragkit.stores.pgvector.write_sql`), or joins ``client.transaction()`` when inside one.

Example:
    >>> # store.add_vectors(texts, matrix, metadatas, ids=ids)
    >>> # store.delete(["id1", "id2"])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from ragkit.errors import StoreInputError
from ragkit.stores._docstore import ids_to_delete, new_ids
from ragkit.stores.pgvector import write_sql
from ragkit.stores.pgvector._state import PGStoreState
from ragkit.stores.pgvector.codec import encode_metadatas, encode_text
from ragkit.stores.pgvector.lexical import Terms, default_analyzer
from ragkit.stores.pgvector.vectors import binary_rows, check_matrix
from ragkit.stores.vector_adds import NewRows, VectorAddsMixin


class PGWriteMixin(VectorAddsMixin, PGStoreState):
    """``add_texts``, ``add_embeddings``, ``add_vectors`` and ``delete`` of PGVectorStore."""

    # -- adding (add_texts, add_vectors and from_*: VectorAddsMixin's; an id that exists is
    # replaced) ----------------------------------------------------------------------------
    def add_embeddings(
        self,
        text_embeddings: Iterable[tuple[str, Sequence[float]]] | Sequence[str],
        metadatas: Sequence[dict[str, Any]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        embeddings: Any = None,
        **kwargs: Any,
    ) -> list[str]:
        """Add precomputed vectors: ``(text, vector)`` pairs (FaissStore's form), or texts with
        ``embeddings=`` (langchain-postgres' form)."""
        if embeddings is None:
            pairs = cast("Iterable[tuple[str, Sequence[float]]]", text_embeddings)
            return VectorAddsMixin.add_embeddings(self, pairs, metadatas, ids=ids)
        return self.add_vectors(
            cast("list[str]", list(text_embeddings)), embeddings, metadatas, ids=ids
        )

    def _add(self, rows: NewRows) -> list[str]:
        batch = self._prepare(rows)
        if self._info is None:
            self._create(self._pending_dim)
        self.client.run(
            lambda c: self._write(c, batch, rows.ids is not None), what="add", retry=True
        )
        if (
            self.lexical == "bm25"
            and len(batch.ids) >= write_sql.ANALYZE_MIN_ROWS
            and not self.client.in_transaction
        ):
            # a bulk load: set the visibility map now so BM25 reads postings index-only
            # (VACUUM cannot run inside a transaction; autovacuum does it later otherwise)
            from psycopg import sql

            vacuum = sql.SQL("VACUUM {}").format(self.layout.postings)
            self.client.run(lambda c: c.execute(vacuum, ()), what="vacuum", retry=False)
        if self._ann is None and self.index_type == "ivfflat":
            self.create_index("ivfflat", **self.index_params)
        return batch.ids

    def _prepare(self, rows: NewRows) -> write_sql.Batch:
        """Check and encode everything before the first byte is sent (errors name the row)."""
        texts, ids = rows.texts, rows.ids
        matrix = check_matrix(rows.vectors, self._dimension, unit=self.metric.normalize)
        if matrix.shape[0] != len(texts):
            raise StoreInputError(f"got {matrix.shape[0]} vectors for {len(texts)} texts")
        self._pending_dim = int(matrix.shape[1])
        metas = encode_metadatas(rows.metadatas, len(texts))
        encoded = [encode_text(t) for t in texts]
        terms = Terms.of(texts, self._analyzer) if self.lexical and self._analyzer else None
        if self.lexical and self._analyzer is None:
            self._analyzer = default_analyzer(None)
            terms = Terms.of(texts, self._analyzer)
        return write_sql.Batch(
            ids=list(ids) if ids is not None else new_ids(len(texts)),
            contents=[c for c, _ in encoded],
            raws=[r for _, r in encoded],
            metadatas=metas,
            vectors=binary_rows(matrix, self.vector_type),
            terms=terms,
        )

    def _write(self, conn: Any, batch: write_sql.Batch, given_ids: bool) -> None:
        with conn.transaction():
            write_sql.lock_collection(conn, self.layout)
            if given_ids:
                present = write_sql.existing_ids(conn, self.layout, batch.ids)
                if present:
                    write_sql.delete_rows(conn, self.layout, present, self.lexical)
            first = write_sql.reserve_seqs(conn, self.layout, len(batch.ids))
            write_sql.copy_rows(conn, self.layout, batch, first, self.lexical)

    # -- deleting -----------------------------------------------------------------------------
    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete ``ids``; ValueError (and nothing deleted) if any id is unknown."""
        wanted = ids_to_delete(ids)
        if not wanted:
            return True
        self._need_collection("delete")

        def delete(conn: Any) -> None:
            with conn.transaction():
                write_sql.run_sql(conn, write_sql.delete_steps(self.layout, wanted, self.lexical))

        self.client.run(delete, what="delete", retry=False)
        return True
