"""BM25Retriever: scoring parity, retrieval behaviour, bad input, persistence."""

from __future__ import annotations

import asyncio
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, EmptyCorpusError, IndexFormatError, InvalidQueryError
from ragkit.eval import evaluate
from ragkit.retrievers.analyzer import Analyzer
from ragkit.retrievers.bm25 import BM25Retriever
from ragkit.retrievers.bm25_index import BM25Index


def test_robertson_scores_equal_rank_bm25(bikes):
    from rank_bm25 import BM25Okapi

    analyzer = Analyzer()
    tokens = [analyzer(d.page_content) for d in bikes.documents]
    ours = BM25Index.build(tokens, method="robertson", k1=1.2, b=0.7)
    theirs = BM25Okapi(tokens, k1=1.2, b=0.7)
    for query in list(bikes.queries.values())[:10]:
        q = analyzer(query)
        np.testing.assert_allclose(ours.scores(q), theirs.get_scores(q), rtol=1e-5, atol=1e-6)


def test_lucene_score_matches_the_formula_by_hand():
    corpus = [["a", "b", "a"], ["b", "c"], ["c", "c", "c", "d"], ["e"]]
    index = BM25Index.build(corpus, k1=1.5, b=0.75)
    n, avgdl = 4, 10 / 4

    def term(tf, dl, df):
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf * tf * 2.5 / (tf + 1.5 * (1 - 0.75 + 0.75 * dl / avgdl))

    expected = [term(2, 3, 1) + term(1, 3, 2), term(1, 2, 2), 0.0, 0.0]
    np.testing.assert_allclose(index.scores(["a", "b"]), expected, rtol=1e-6)
    ids, scores = index.top_k(["a", "b"], k=10)
    assert ids.tolist() == [0, 1]  # documents without a query term are not returned


def test_repeated_query_terms_count_twice():
    index = BM25Index.build([["x", "y"], ["y"]])
    np.testing.assert_allclose(index.scores(["x", "x"]), 2 * index.scores(["x"]))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcdefg"), max_size=8), min_size=1, max_size=25),
    st.lists(st.sampled_from("abcdefgz"), max_size=4),
    st.integers(1, 30),
    st.sampled_from(["lucene", "robertson", "atire", "bm25l", "bm25+"]),
)
def test_top_k_equals_brute_force(corpus, query, k, method):
    index = BM25Index.build(corpus, method=method)
    ids, scores = index.top_k(query, k)
    full = index.scores(query)
    matched = [i for i, doc in enumerate(corpus) if set(doc) & set(query)]
    expected = sorted(matched, key=lambda i: (-full[i], i))[:k]
    assert ids.tolist() == expected
    np.testing.assert_allclose(scores, full[expected])


def test_same_ranking_as_langchain_with_the_same_tokenizer(bikes):
    from langchain_community.retrievers import BM25Retriever as LCBM25

    texts = [d.page_content for d in bikes.documents]
    ours = BM25Retriever.from_texts(texts, preprocess_func=str.split, k=5, engine="rank_bm25")
    theirs = LCBM25.from_texts(texts, k=5)
    for query in bikes.queries.values():
        assert [d.page_content for d in ours.invoke(query)] == [
            d.page_content for d in theirs.invoke(query)
        ]


def test_default_engine_agrees_with_rank_bm25_engine(bikes):
    params = {"method": "robertson"}
    fast = BM25Retriever.from_documents(bikes.documents, k=5, bm25_params=params)
    slow = BM25Retriever.from_documents(bikes.documents, k=5, engine="rank_bm25")
    for query in bikes.queries.values():
        a, b = fast.invoke(query), slow.invoke(query)
        assert [d.id for d in a] == [d.id for d in b][: len(a)]
        np.testing.assert_allclose(
            [d.metadata["score"] for d in a], [d.metadata["score"] for d in b][: len(a)], rtol=1e-5
        )


def test_results_carry_ids_metadata_and_scores_without_touching_the_originals():
    docs = [
        Document("brake pads wear out", metadata={"src": "a"}, id="1"),
        Document("chain lube for rain", metadata={"src": "b"}, id="2"),
    ]
    r = BM25Retriever.from_documents(docs)
    [hit] = r.invoke("worn brake pads")
    assert hit.id == "1" and hit.metadata["src"] == "a" and hit.metadata["score"] > 0
    assert "score" not in docs[0].metadata


def test_k_default_and_per_call(bikes):
    r = BM25Retriever.from_documents(bikes.documents)
    assert len(r.invoke("chain")) == 4
    assert len(r.invoke("chain", k=7)) == 7
    assert r.invoke("chain", k=0) == []
    scores = [d.metadata["score"] for d in r.invoke("chain", k=7)]
    assert scores == sorted(scores, reverse=True)


def test_ranking_quality_on_the_shipped_dataset(bikes):
    result = evaluate(BM25Retriever.from_documents(bikes.documents, k=10), bikes, k_values=(10,))
    assert result.scores["ndcg@10"] > 0.8


@pytest.mark.parametrize("query", ["", "   ", "the of and", "?!", "zzzqqq"])
def test_queries_without_known_terms_return_nothing(bikes, query):
    assert BM25Retriever.from_documents(bikes.documents).invoke(query) == []


def test_bad_input_raises_specific_errors(bikes):
    r = BM25Retriever.from_documents(bikes.documents)
    with pytest.raises(EmptyCorpusError, match="0 documents"):
        BM25Retriever.from_texts([])
    with pytest.raises(InvalidQueryError, match="k must be >= 0"):
        r.invoke("chain", k=-1)
    with pytest.raises(InvalidQueryError, match="string"):
        r.invoke(42)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="filter"):
        r.invoke("chain", filter={"a": 1})
    with pytest.raises(ConfigurationError, match="same length"):
        BM25Retriever.from_texts(["a", "b"], metadatas=[{}])
    with pytest.raises(ConfigurationError, match="k1"):
        BM25Retriever.from_texts(["a"], bm25_params={"k1": -1})
    with pytest.raises(ConfigurationError, match="unknown bm25_params"):
        BM25Retriever.from_texts(["a"], bm25_params={"kone": 1})
    with pytest.raises(ConfigurationError, match="engine"):
        BM25Retriever.from_texts(["a"], engine="lucene")
    with pytest.raises(ConfigurationError, match="not both"):
        BM25Retriever.from_texts(["a"], preprocess_func=str.split, analyzer=Analyzer())


def test_async_and_batch(bikes):
    r = BM25Retriever.from_documents(bikes.documents, k=3)
    queries = list(bikes.queries.values())[:5]
    sync = [[d.id for d in r.invoke(q)] for q in queries]
    assert [[d.id for d in docs] for docs in r.batch(queries)] == sync
    assert [d.id for d in asyncio.run(r.ainvoke(queries[0]))] == sync[0]


# -- persistence ------------------------------------------------------------------


def test_save_load_round_trip(tmp_path, bikes):
    r = BM25Retriever.from_documents(bikes.documents, k=6, analyzer=Analyzer(min_token_length=2))
    r.save(tmp_path / "idx")
    loaded = BM25Retriever.load(tmp_path / "idx")
    assert loaded.k == 6 and loaded.analyzer == r.analyzer
    for q in bikes.queries.values():
        assert loaded.invoke(q) == r.invoke(q)
    header = json.loads((tmp_path / "idx" / "bm25.json").read_text())
    assert (
        header["format"] == "ragkit.bm25" and header["documents"][0]["id"] == bikes.documents[0].id
    )
    with np.load(tmp_path / "idx" / "bm25.npz", allow_pickle=False) as data:
        assert set(data.files) == {"indptr", "doc_ids", "weights"}


def test_rank_bm25_engine_round_trip(tmp_path, bikes):
    r = BM25Retriever.from_documents(bikes.documents, engine="rank_bm25", bm25_params={"k1": 1.1})
    r.save(tmp_path)
    loaded = BM25Retriever.load(tmp_path)
    assert loaded.engine == "rank_bm25" and loaded.vectorizer.k1 == 1.1
    assert loaded.invoke("tyre pressure") == r.invoke("tyre pressure")


def test_custom_preprocess_func_must_be_given_again(tmp_path):
    r = BM25Retriever.from_texts(["a b", "c d"], preprocess_func=str.split)
    r.save(tmp_path)
    with pytest.raises(IndexFormatError, match="preprocess_func"):
        BM25Retriever.load(tmp_path)
    assert [
        d.page_content for d in BM25Retriever.load(tmp_path, preprocess_func=str.split).invoke("c")
    ] == ["c d"]


def test_damaged_or_mixed_files_are_refused(tmp_path):
    BM25Retriever.from_texts(["solar panels", "wind turbines"]).save(tmp_path / "one")
    BM25Retriever.from_texts(["rain", "snow", "hail"]).save(tmp_path / "two")
    (tmp_path / "one" / "bm25.npz").write_bytes((tmp_path / "two" / "bm25.npz").read_bytes())
    with pytest.raises(IndexFormatError, match="checksum"):
        BM25Retriever.load(tmp_path / "one")
    (tmp_path / "two" / "bm25.json").write_text("{not json")
    with pytest.raises(IndexFormatError, match="not valid JSON"):
        BM25Retriever.load(tmp_path / "two")
    with pytest.raises(IndexFormatError, match="missing"):
        BM25Retriever.load(tmp_path / "nothing-here")


def test_unknown_format_version_is_refused(tmp_path):
    BM25Retriever.from_texts(["solar panels"]).save(tmp_path)
    header = json.loads((tmp_path / "bm25.json").read_text())
    header["version"] = 99
    (tmp_path / "bm25.json").write_text(json.dumps(header))
    with pytest.raises(IndexFormatError, match="version 99"):
        BM25Retriever.load(tmp_path)


def test_metadata_that_is_not_json_is_reported(tmp_path):
    r = BM25Retriever.from_texts(["a", "b"], metadatas=[{}, {"when": object()}])
    with pytest.raises(ConfigurationError, match="document 1"):
        r.save(tmp_path)
    assert not (tmp_path / "bm25.json").exists()
