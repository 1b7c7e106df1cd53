"""SemanticChunker: same chunks as langchain_experimental's, with any ragkit Embeddings."""

from __future__ import annotations

import warnings

import pytest
from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings
from ragkit.splitters import SemanticChunker

from .corpus import corpus

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_experimental.text_splitter import SemanticChunker as LCSemanticChunker


class _LCHash(LCEmbeddings):
    """The same HashEmbeddings behind LangChain's Embeddings interface."""

    def __init__(self, inner: HashEmbeddings) -> None:
        self.inner = inner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


TEXTS = [t.replace("\n", " ") for t in corpus()["prose"][:12]] + [
    "One sentence only",
    "Two. Sentences.",
    "Cats purr. Cats meow! Dogs bark? Stocks fell. Markets slid. Bonds rose.",
]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"breakpoint_threshold_type": "standard_deviation"},
        {"breakpoint_threshold_type": "interquartile"},
        {"breakpoint_threshold_type": "gradient"},
        {"breakpoint_threshold_amount": 60},
        {"number_of_chunks": 3},
        {"buffer_size": 0, "min_chunk_size": 40},
        {"buffer_size": 2},
    ],
)
def test_matches_langchain_experimental(kwargs: dict) -> None:
    emb = HashEmbeddings(size=48)
    ours = SemanticChunker(emb, **kwargs)
    theirs = LCSemanticChunker(_LCHash(emb), **kwargs)
    for text in TEXTS:
        assert ours.split_text(text) == theirs.split_text(text)


def test_start_index_points_at_the_first_sentence() -> None:
    text = "Alpha one.   Alpha two.\n\nBeta three. Beta four."
    docs = SemanticChunker(
        HashEmbeddings(size=32), breakpoint_threshold_amount=50, add_start_index=True
    ).create_documents([text], [{"source": "t"}])
    assert len(docs) >= 2
    for d in docs:
        first_sentence = d.page_content.split(". ")[0]
        assert text[d.metadata["start_index"] :].startswith(first_sentence)
        assert d.metadata["source"] == "t"


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="breakpoint_threshold_type"):
        SemanticChunker(HashEmbeddings(), breakpoint_threshold_type="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="number_of_chunks"):
        SemanticChunker(HashEmbeddings(), number_of_chunks=0)


def test_runnable() -> None:
    chunker = SemanticChunker(HashEmbeddings(size=32), breakpoint_threshold_amount=50)
    out = chunker.invoke(
        [Document("Cats purr. Cats meow. Stocks fell. Markets slid.", metadata={"s": 1})]
    )
    assert [d.page_content for d in out] == ["Cats purr. Cats meow.", "Stocks fell. Markets slid."]
    assert all(d.metadata == {"s": 1} for d in out)
