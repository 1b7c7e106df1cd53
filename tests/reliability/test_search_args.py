"""One validation rule for every retriever and store search: bad ``k``, ``fetch_k``,
``lambda_mult``, filters nested too deep and over-long queries raise InvalidQueryError
(a ValueError) before any work, instead of ``[]``, a raw error or a long stall."""

from __future__ import annotations

import math

import pytest

from ragkit.documents import Document
from ragkit.errors import InvalidQueryError
from ragkit.indexing.index_dir import Index
from ragkit.stores.search_args import (
    DEFAULT_MAX_QUERY_LENGTH,
    get_max_query_length,
    set_max_query_length,
)
from tests.cli.helpers import ragkit

KINDS = ("similarity", "mmr", "bm25", "hybrid", "parent")


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    path = tmp_path_factory.mktemp("search") / "idx"
    index = Index.create(path, "hash-32")
    docs = [
        Document(f"doc {i} about apples and pears", metadata={"source": f"s{i}"}) for i in range(12)
    ]
    index.add(docs)
    return Index.open(path)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bad", [-1, 2.5, True, math.nan, "3"])
def test_bad_k_is_refused_by_every_retriever(idx, kind, bad):
    with pytest.raises(InvalidQueryError, match="k must be"):
        idx.retriever(kind, k=bad).invoke("apples")


@pytest.mark.parametrize("kind", ["bm25", "hybrid"])
def test_k_set_on_the_object_is_checked_too(idx, kind):
    retriever = idx.retriever(kind, k=3)
    retriever.k = -2
    with pytest.raises(InvalidQueryError, match="k must be >= 0"):
        retriever.invoke("apples")


@pytest.mark.parametrize("kind", KINDS)
def test_k_zero_gives_nothing_everywhere(idx, kind):
    assert idx.retriever(kind, k=0).invoke("apples") == []


@pytest.mark.parametrize(
    "option, value",
    [
        ("fetch_k", math.nan),
        ("fetch_k", math.inf),
        ("fetch_k", -3),
        ("lambda_mult", math.nan),
        ("lambda_mult", -0.5),
        ("lambda_mult", 1.5),
        ("lambda_mult", math.inf),
    ],
)
def test_mmr_options(idx, option, value):
    with pytest.raises(InvalidQueryError, match=option):
        idx.retriever("mmr", **{option: value})  # refused when the retriever is made
    with pytest.raises(InvalidQueryError, match=option):
        idx.vectorstore.max_marginal_relevance_search("apples", **{option: value})


@pytest.mark.parametrize("value", [math.nan, math.inf, -1, 2.5])
def test_hybrid_fetch_k(idx, value):
    with pytest.raises(InvalidQueryError, match="fetch_k"):
        idx.retriever("hybrid", fetch_k=value)


def test_deep_filters_are_refused_not_a_recursion_error(idx):
    deep: dict = {"source": "s1"}
    for _ in range(5000):
        deep = {"$not": deep}
    with pytest.raises(InvalidQueryError, match="nested more than 64 levels"):
        idx.search("apples", filter=deep)
    ok: dict = {"source": "s1"}
    for _ in range(64):
        ok = {"$not": ok}
    assert [d.metadata["source"] for d in idx.search("apples", k=12, filter=ok)] == ["s1"]
    with pytest.raises(InvalidQueryError, match="unsupported operator"):
        idx.search("apples", filter={"$xor": []})


@pytest.mark.parametrize("kind", KINDS)
def test_an_overlong_query_is_refused_by_every_retriever(idx, kind):
    huge = "apples " * 1_500_000  # 10.5 MB
    with pytest.raises(InvalidQueryError, match="over the limit of 100,000"):
        idx.retriever(kind).invoke(huge)
    with pytest.raises(InvalidQueryError, match="over the limit"):
        idx.search(huge)


def test_the_query_limit_can_be_changed(idx):
    assert get_max_query_length() == DEFAULT_MAX_QUERY_LENGTH
    long = "apples " * 20_000  # 140,000 characters
    previous = set_max_query_length(200_000)
    try:
        assert idx.retriever("bm25").invoke(long)
    finally:
        set_max_query_length(previous)
    with pytest.raises(InvalidQueryError):
        idx.retriever("bm25").invoke(long)
    with pytest.raises(InvalidQueryError, match="positive integer or None"):
        set_max_query_length(0)


def test_ragkit_query_limit(idx):
    long = "apples " * 17_000  # 119,000 characters: under the 128 KiB limit of one argument
    refused = ragkit("query", idx.path, long, "--retriever", "bm25")
    assert refused.returncode == 2 and "over the limit of 100,000" in refused.stderr
    assert "--max-query-length" in refused.stderr and "Traceback" not in refused.stderr
    allowed = ragkit(
        "query", idx.path, long, "--retriever", "bm25", "--max-query-length", "200000", "--json"
    )
    assert allowed.returncode == 0, allowed.stderr
