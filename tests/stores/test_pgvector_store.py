"""PGVectorStore only: ANN indexes, halfvec, reopening, transactions, lexical and hybrid search.

All against the real PostgreSQL + pgvector server of the suite (tests/conftest.py).
"""

from __future__ import annotations

import json
import uuid

import numpy as np
import pytest

from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError, EmbeddingMismatchError
from ragkit.stores import DistanceStrategy, FaissStore, PGVectorStore
from ragkit.stores.pgvector import PGClient
from ragkit.stores.pgvector.filters import compile_sql


def new_name() -> str:
    return f"p_{uuid.uuid4().hex[:12]}"


def clustered(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, d))
    x = centres[rng.integers(0, 20, n)] + 0.3 * rng.standard_normal((n, d))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def recall_at(store: PGVectorStore, exact: FaissStore, queries: np.ndarray, k: int) -> float:
    found = 0
    for q in queries:
        want = {d.id for d in exact.similarity_search_by_vector(q, k=k)}
        got = {d.id for d in store.similarity_search_by_vector(q, k=k)}
        found += len(want & got)
    return found / (k * len(queries))


@pytest.mark.parametrize("index_type", ["hnsw", "ivfflat"])
def test_ann_indexes_are_used_and_close_to_exact(index_type: str, pg_client: PGClient) -> None:
    data = clustered(3030, 32, 1)
    vecs, queries = data[:3000], data[3000:]  # queries from the same clusters as the data
    ids = [str(i) for i in range(3000)]
    store = PGVectorStore(None, connection=pg_client, collection_name=new_name())
    store.add_vectors(ids, vecs, [{"g": i % 10} for i in range(3000)], ids=ids)
    exact = FaissStore(None)
    exact.add_vectors(ids, vecs, ids=ids)
    assert recall_at(store, exact, queries, 10) == 1.0  # no index yet: exact
    if index_type == "hnsw":
        store.create_index("hnsw", m=8, ef_construction=32)
    else:
        store.create_index("ivfflat", lists=30)
    plan = pg_client.run(
        lambda c: c.execute(
            f'EXPLAIN SELECT id FROM "{store.collection_name}".documents '
            f"ORDER BY embedding <#> %s::vector LIMIT 5",
            (queries[0],),
        ).fetchall()
    )
    assert "documents_embedding_ann" in " ".join(r[0] for r in plan)
    approx = recall_at(store, exact, queries, 10)
    assert (0.8 if index_type == "hnsw" else 0.5) < approx <= 1.0
    # a wider search never finds fewer true neighbours
    if index_type == "hnsw":
        store.ef_search = 400
    else:
        store.probes = 30  # every list: exact
    wider = recall_at(store, exact, queries, 10)
    assert wider >= approx and (index_type == "hnsw" or wider == 1.0)
    # exact=True per call ignores the index
    q = queries[3]
    assert [d.id for d in store.similarity_search_by_vector(q, k=10, exact=True)] == [
        d.id for d in exact.similarity_search_by_vector(q, k=10)
    ]
    # filters still return k rows (iterative index scans, else an exact re-run)
    hits = store.similarity_search_by_vector(q, k=25, filter={"g": 7})
    assert len(hits) == 25 and all(d.metadata["g"] == 7 for d in hits)
    store.drop_index()
    assert recall_at(store, exact, queries[:5], 10) == 1.0


def test_index_type_at_creation_and_reopen(pg_client: PGClient, unit_rows) -> None:
    name = new_name()
    store = PGVectorStore(
        HashEmbeddings(16),
        connection=pg_client,
        collection_name=name,
        index_type="hnsw",
        index_params={"m": 12},
    )
    store.add_vectors(["a", "b"], unit_rows(2, 16, 0), ids=["a", "b"])
    again = PGVectorStore(HashEmbeddings(16), connection=pg_client, collection_name=name)
    assert again._ann == "hnsw" and len(again) == 2
    with pytest.raises(ConfigurationError, match="m"):
        store.create_index("hnsw", lists=3)
    with pytest.raises(ConfigurationError, match="index_type"):
        PGVectorStore(None, connection=pg_client, collection_name=new_name(), index_type="flat")


def test_halfvec_stores_half_precision(pg_client: PGClient, unit_rows) -> None:
    vecs = unit_rows(200, 24, 5)
    ids = [str(i) for i in range(200)]
    half = PGVectorStore(
        None, connection=pg_client, collection_name=new_name(), vector_type="halfvec"
    )
    half.add_vectors(ids, vecs, ids=ids)
    full = FaissStore(None)
    full.add_vectors(ids, vecs, ids=ids)
    for q in unit_rows(5, 24, 6):
        got = half.similarity_search_with_score_by_vector(q, k=5)
        want = full.similarity_search_with_score_by_vector(q, k=5)
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], atol=2e-3)
    mmr = half.max_marginal_relevance_search_by_vector(vecs[0], k=3, fetch_k=10)
    assert mmr[0].id == "0"
    size = pg_client.run(
        lambda c: c.execute(
            f'SELECT pg_column_size(embedding) FROM "{half.collection_name}".documents LIMIT 1'
        ).fetchone()[0]
    )
    assert size <= 4 + 4 + 2 * 24  # varlena + pgvector header + float16 values (float32: 101)


@pytest.mark.parametrize(
    ("strategy", "stored"),
    [
        (None, "cosine"),
        ("COSINE_SIMILARITY", "cosine"),
        ("COSINE", "cosine_distance"),
        ("MAX_INNER_PRODUCT", "max_inner_product"),
        ("EUCLIDEAN_DISTANCE", "euclidean_distance"),
    ],
)
def test_collection_row_names_the_strategy_as_a_faiss_manifest_does(
    pg_client: PGClient, strategy, stored: str, tmp_path
) -> None:
    name = new_name()
    chosen = {} if strategy is None else {"distance_strategy": strategy}  # None: the default
    store = PGVectorStore.from_texts(
        ["a b", "c d"], HashEmbeddings(8), connection=pg_client, collection_name=name, **chosen
    )
    row = pg_client.run(lambda c: c.execute(f'SELECT distance FROM "{name}".collection').fetchone())
    assert row[0] == stored
    faiss = FaissStore.from_texts(["a b", "c d"], HashEmbeddings(8), **chosen)
    faiss.save(tmp_path / "f")
    assert json.loads((tmp_path / "f" / "manifest.json").read_text())["distance_strategy"] == stored
    reopened = PGVectorStore(None, connection=pg_client, collection_name=name)
    assert reopened.distance_strategy is store.distance_strategy is faiss.distance_strategy


def test_reopening_checks_model_dimension_and_settings(pg_client: PGClient, unit_rows) -> None:
    name = new_name()
    store = PGVectorStore(
        HashEmbeddings(16), connection=pg_client, collection_name=name, distance_strategy="l2"
    )
    store.add_texts(["kept"], ids=["k"])
    reopened = PGVectorStore(HashEmbeddings(16), connection=pg_client, collection_name=name)
    assert reopened.distance_strategy is DistanceStrategy.EUCLIDEAN_DISTANCE  # the stored one

    class Other(HashEmbeddings):
        @property
        def model_id(self) -> str:
            return "another-model"

    with pytest.raises(EmbeddingMismatchError, match="another-model"):
        PGVectorStore(Other(16), connection=pg_client, collection_name=name)
    with pytest.raises(EmbeddingMismatchError, match="dimension 16"):
        PGVectorStore(None, connection=pg_client, collection_name=name, embedding_length=8)
    with pytest.raises(ConfigurationError, match="distance_strategy='EUCLIDEAN_DISTANCE'"):
        PGVectorStore(None, connection=pg_client, collection_name=name, distance_strategy="cosine")
    with pytest.raises(EmbeddingMismatchError, match="dimension"):
        reopened.add_vectors(["x"], unit_rows(1, 8, 0))
    assert [d.id for d in reopened.get_by_ids(["k"])] == ["k"] and len(reopened) == 1
    with pytest.raises(ConfigurationError, match="does not exist"):
        PGVectorStore.from_existing_index(None, connection=pg_client, collection_name=new_name())


def test_transaction_is_invisible_until_commit(pg_client: PGClient, pg_dsn: str, unit_rows) -> None:
    name = new_name()
    writer = PGVectorStore(None, connection=pg_client, collection_name=name, embedding_length=8)
    reader = PGVectorStore(None, connection=pg_dsn, collection_name=name)  # its own pool
    try:
        with pg_client.transaction():
            writer.add_vectors(["a", "b"], unit_rows(2, 8, 0), ids=["a", "b"])
            writer.delete(["a"])
            assert len(writer) == 1  # the writer sees its own work
            assert len(reader) == 0  # nobody else does yet
        assert reader.ids == ["b"]
        with pytest.raises(RuntimeError), pg_client.transaction():
            writer.add_vectors(["c"], unit_rows(1, 8, 1), ids=["c"])
            raise RuntimeError("abort")
        assert reader.ids == ["b"]  # rolled back
    finally:
        reader.close()


def test_upsert_and_counts_keep_bm25_statistics(pg_client: PGClient) -> None:
    store = PGVectorStore(
        HashEmbeddings(32), connection=pg_client, collection_name=new_name(), lexical="bm25"
    )
    store.add_texts(["solar panels", "wind turbines at sea"], ids=["a", "b"])
    store.add_texts(["solar solar wind"], ids=["a"])  # replaces a
    store.delete(["b"])
    count, total = pg_client.run(
        lambda c: c.execute(
            f'SELECT doc_count, total_len FROM "{store.collection_name}".collection'
        ).fetchone()
    )
    assert (count, total) == (1, 3)
    postings = pg_client.run(
        lambda c: c.execute(
            f'SELECT term, tf FROM "{store.collection_name}".postings ORDER BY term'
        ).fetchall()
    )
    assert postings == [("solar", 2), ("wind", 1)]


def test_sql_filters_cover_the_filter_language() -> None:
    """The hypothesis filters of test_store_filters.py run in SQL, not in the Python fallback."""
    from hypothesis import given, settings

    from tests.stores.test_store_filters import filters

    @settings(max_examples=200, deadline=None, derandomize=True)
    @given(flt=filters)
    def check(flt: dict) -> None:
        assert compile_sql(flt) is not None

    check()
    assert compile_sql(lambda m: True) is None
    assert compile_sql({"a": {"$in": [[1, 2]]}}) is None  # list values: Python fallback
    assert compile_sql({"a": {"$gt": [1]}}) is None


def test_bool_int_float_equality_as_in_python(pg_client: PGClient, unit_rows) -> None:
    metas = [{"v": True}, {"v": 1}, {"v": 1.0}, {"v": "1"}, {"v": None}, {}, {"v": 0.1 + 0.2}]
    store = PGVectorStore(None, connection=pg_client, collection_name=new_name())
    store.add_vectors([str(i) for i in range(7)], unit_rows(7, 4, 0), metas, ids=list("0123456"))
    q = unit_rows(1, 4, 1)[0]

    def ids(flt: dict) -> set[str]:
        return {d.id for d in store.similarity_search_by_vector(q, k=10, filter=flt)}

    assert ids({"v": 1}) == {"0", "1", "2"}  # True == 1 == 1.0 in Python
    assert ids({"v": "1"}) == {"3"}
    assert ids({"v": None}) == {"4", "5"}  # missing reads as None
    assert ids({"v": 0.30000000000000004}) == {"6"} and ids({"v": 0.3}) == set()
    assert ids({"v": {"$gt": 0.5}}) == {"0", "1", "2"}  # strings/None are not ordered vs numbers
    assert ids({"v": {"$ne": 1}}) == {"3", "4", "5", "6"}
    assert ids({"v": {"$lt": "2"}}) == {"3"}


def test_collection_metadata_travels_with_the_collection(pg_client: PGClient, unit_rows) -> None:
    name = new_name()
    store = PGVectorStore(
        None,
        connection=pg_client,
        collection_name=name,
        embedding_length=4,
        collection_metadata={"splitter": {"chunk_size": 500}},
    )
    assert store.get_collection_metadata() == {"splitter": {"chunk_size": 500}}
    with pytest.raises(RuntimeError), pg_client.transaction():
        store.set_collection_metadata({"model": "other"})
        raise RuntimeError("rolled back with the transaction")
    reopened = PGVectorStore(None, connection=pg_client, collection_name=name)
    assert reopened.get_collection_metadata() == {"splitter": {"chunk_size": 500}}
    reopened.set_collection_metadata({"model": "m", "files": 3})
    assert store.get_collection_metadata() == {"model": "m", "files": 3}
