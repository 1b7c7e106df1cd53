"""InMemoryVectorStore against langchain-core's, on the same vectors: results, scores, files."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from ragkit.documents import Document
from ragkit.errors import IndexCorruptedError, StoreInputError
from ragkit.stores import InMemoryVectorStore
from tests.stores.lc_twins import LangChainScaled, RagkitScaled

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.documents import Document as LCDocument
    from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

TEXTS = [
    "red apple pie",
    "green pear",
    "red car fast",
    "blue sky over the lake",
    "apple and pear salad",
    "a fast red train",
    "stone wall",
    "red red apple",
]
QUERIES = ["red apple", "fast train", "pear salad", "lake"]


def build():
    metas = [{"n": i, "colour": "red" if "red" in t else "other"} for i, t in enumerate(TEXTS)]
    ids = [f"id{i}" for i in range(len(TEXTS))]
    lc = LCInMemoryVectorStore(LangChainScaled())
    ours = InMemoryVectorStore(RagkitScaled())
    assert lc.add_texts(TEXTS, metas, ids=ids) == ours.add_texts(TEXTS, metas, ids=ids)
    return lc, ours


def rows(scored):
    return [(d.id, d.page_content, d.metadata, round(float(s), 5)) for d, s in scored]


def test_same_results_and_cosine_scores() -> None:
    lc, ours = build()
    for q in QUERIES:
        for k in (1, 3, 20):
            assert rows(ours.similarity_search_with_score(q, k=k)) == rows(
                lc.similarity_search_with_score(q, k=k)
            )
        vector = RagkitScaled().embed_query(q)
        assert [d.id for d in ours.similarity_search_by_vector(vector, k=3)] == [
            d.id for d in lc.similarity_search_by_vector(vector, k=3)
        ]


def test_same_filter_on_documents_and_mmr() -> None:
    lc, ours = build()

    def reds(doc) -> bool:
        return doc.metadata["colour"] == "red"

    for q in QUERIES:
        assert rows(ours.similarity_search_with_score(q, k=3, filter=reds)) == rows(
            lc.similarity_search_with_score(q, k=3, filter=reds)
        )
        for lam in (0.0, 0.5, 1.0):
            assert [d.id for d in ours.max_marginal_relevance_search(q, 3, 6, lambda_mult=lam)] == [
                d.id for d in lc.max_marginal_relevance_search(q, 3, 6, lambda_mult=lam)
            ]
    # ragkit also takes its metadata filter language
    got = ours.similarity_search("red apple", k=8, filter={"colour": "red"})
    assert {d.id for d in got} == {d.id for d in lc.similarity_search("red apple", 8, filter=reds)}


def test_same_ids_get_delete_and_upsert() -> None:
    lc, ours = build()
    docs = [Document("fresh text", id="x"), Document("another")]
    lc_docs = [LCDocument("fresh text", id="x"), LCDocument("another")]
    mine, theirs = ours.add_documents(docs), lc.add_documents(lc_docs)
    assert mine[0] == theirs[0] == "x" and len(mine[1]) == len(theirs[1]) == 36  # uuid4
    ours.add_documents([Document("replaced", id="x")])
    lc.add_documents([LCDocument("replaced", id="x")])
    assert [(d.id, d.page_content) for d in ours.get_by_ids(["x", "id2", "nope"])] == [
        (d.id, d.page_content) for d in lc.get_by_ids(["x", "id2", "nope"])
    ]
    ours.delete(["id1", "unknown"])
    lc.delete(["id1", "unknown"])
    assert rows(ours.similarity_search_with_score("green pear", k=2))[0][0] != "id1"
    assert set(ours.store) - {mine[1]} == set(lc.store) - {theirs[1]}
    with pytest.raises(StoreInputError, match="same length"):
        ours.add_documents([Document("a")], ids=["1", "2"])


def test_relevance_scores_in_unit_interval() -> None:
    _, ours = build()
    rel = [s for _, s in ours.similarity_search_with_relevance_scores("red apple", k=8)]
    assert all(0.0 <= s <= 1.0 for s in rel) and rel == sorted(rel, reverse=True)


def test_dump_and_load_read_each_others_files(tmp_path: Path) -> None:
    lc, ours = build()
    lc.dump(str(tmp_path / "lc.json"))
    ours.dump(tmp_path / "ours.json")
    from_lc = InMemoryVectorStore.load(tmp_path / "lc.json", RagkitScaled())
    from_ours = LCInMemoryVectorStore.load(str(tmp_path / "ours.json"), LangChainScaled())
    for q in QUERIES:
        expected = rows(lc.similarity_search_with_score(q, k=4))
        assert rows(from_lc.similarity_search_with_score(q, k=4)) == expected
        assert rows(from_ours.similarity_search_with_score(q, k=4)) == expected
    # the same file, entry for entry
    assert json.loads((tmp_path / "ours.json").read_text()) == json.loads(
        (tmp_path / "lc.json").read_text()
    )
    (tmp_path / "bad.json").write_text('{"a": {"id": "a"}}')
    with pytest.raises(IndexCorruptedError, match="not an InMemoryVectorStore dump"):
        InMemoryVectorStore.load(tmp_path / "bad.json", RagkitScaled())


def test_search_arguments_follow_ragkits_one_rule() -> None:
    from ragkit.errors import InvalidQueryError
    from ragkit.stores.search_args import get_max_query_length

    _, ours = build()
    assert ours.similarity_search("red", k=0) == []
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(InvalidQueryError, match="k must be"):
            ours.similarity_search("red", k=bad)
    with pytest.raises(InvalidQueryError, match="lambda_mult"):
        ours.max_marginal_relevance_search("red", lambda_mult=2)
    with pytest.raises(InvalidQueryError, match="fetch_k"):
        ours.max_marginal_relevance_search("red", fetch_k=-1)
    with pytest.raises(InvalidQueryError, match="over the limit"):
        ours.similarity_search("x" * (get_max_query_length() + 1))
    with pytest.raises(InvalidQueryError, match="string"):
        ours.similarity_search(42)
