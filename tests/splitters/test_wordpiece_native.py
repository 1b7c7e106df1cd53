"""The native WordPiece pass (C extension): built, exact, and safe on bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.splitters._wordpiece import WordOffsets
from ragkit.splitters.token import local_tokenizer

from .corpus import corpus


def test_the_extension_is_built() -> None:
    # `pip install -e .` (make setup) compiles it; without it TokenTextSplitter is several times slower
    try:
        from ragkit.splitters import _wordpiece_c  # noqa: F401
    except ImportError as exc:
        pytest.fail(
            f"ragkit.splitters._wordpiece_c was not built ({exc}); reinstall with a C compiler present"
        )


def _native():  # type: ignore[no-untyped-def]
    from ragkit.splitters._wordpiece_fast import NativeWordPiece

    return NativeWordPiece(local_tokenizer())


def _all_token_spans(text: str) -> list[tuple[int, int]]:
    return [
        tuple(span) for span in local_tokenizer().encode(text, add_special_tokens=False).offsets
    ]  # type: ignore[misc]


LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(
        st.text(alphabet=st.sampled_from(LETTERS), min_size=1, max_size=120)
        | st.sampled_from(list("!#$%&'()*+,-./:;<=>?@[]^_`{|}~\\"))
        | st.sampled_from(
            [
                "Tokenization",
                "unaffable",
                "xyzzyqwv",
                "a" * 100,
                "a" * 101,
                "Ünïcode",
                "tab\x07bell",
                "\x00",
                "\x7f",
                "na\u00efve",
                "\u4e2d\u6587",
                "\u2014",
                "\u00ad",
                "\U0001f600",
                "e\u0301",
                "\u1fef",
                "\u037e",
                "\ufeff",
                "\u200b",
            ]
        ),
        max_size=30,
    ),
    gaps=st.lists(
        st.sampled_from(["", " ", "\n\t ", "\r\n", "\u00a0", "\u3000", "\x0b", "\x85"]), max_size=30
    ),
)
@pytest.mark.slow
def test_every_token_span_matches_the_tokenizer(words: list[str], gaps: list[str]) -> None:
    text = "".join(w + (gaps[i] if i < len(gaps) else " ") for i, w in enumerate(words))
    # windows of one token, one apart: the span of every token
    assert _native().windows(text, 1, 1) == _all_token_spans(text)


def test_corpus_matches_the_python_route_and_the_tokenizer() -> None:
    native, python = _native(), WordOffsets(local_tokenizer())
    texts = [t for kind in ("prose", "python", "html", "markdown") for t in corpus()[kind][:6]]
    for text in texts:
        assert native.windows(text, 1, 1) == _all_token_spans(text)
        for size, step in ((256, 224), (9, 4), (3, 3)):
            assert native.windows(text, size, step) == python.windows(text, size, step)


@pytest.mark.slow
def test_every_code_point_between_letters() -> None:
    # each code point as part of a word, as punctuation, as whitespace or deleted: whatever the tokenizer says
    native = _native()
    points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(points), 8192):
        text = "".join(f"q{chr(c)}q " for c in points[i : i + 8192])
        assert native.windows(text, 1, 1) == _all_token_spans(text), (
            f"code points from U+{points[i]:04X}"
        )


@pytest.mark.parametrize("text", ["0\u2e52", "x\u166dy", "a\U000111c9b"])
def test_punctuation_is_what_the_tokenizer_says(text: str) -> None:
    # U+2E52 is punctuation to Python 3.11's unicodedata but not to tokenizers; U+166D, U+111C9 the other way
    assert _native().windows(text, 1, 1) == _all_token_spans(text)
    assert WordOffsets(local_tokenizer()).windows(text, 1, 1) == _all_token_spans(text)


def test_the_cache_of_non_ascii_words_is_bounded() -> None:
    from ragkit.splitters._wordpiece_fast import NativeWordPiece

    native = NativeWordPiece(local_tokenizer(), cache_size=20)
    for i in range(30):
        text = " ".join(f"caf\u00e9{i}x{j} na\u00efve" for j in range(25))
        assert native.windows(text, 5, 3) == WordOffsets(local_tokenizer()).windows(text, 5, 3)
        assert len(native._known) <= 20 + 26


def test_bad_input_is_a_clear_error_not_a_crash() -> None:
    from ragkit.splitters import _wordpiece_c
    from ragkit.splitters._wordpiece_fast import char_classes

    with pytest.raises(TypeError, match="entry 1"):
        _wordpiece_c.Vocab(["ok", 3])
    vocab = _wordpiece_c.Vocab(["a"])
    with pytest.raises(ValueError, match="positive"):
        _wordpiece_c.windows("a", vocab, char_classes(), {}, 0, 1)
    with pytest.raises(TypeError, match="span"):
        _wordpiece_c.windows("\u00e9", vocab, char_classes(), {"\u00e9": ((0,),)}, 1, 1)
    with pytest.raises(TypeError, match="tuple"):
        _wordpiece_c.windows("\u00e9", vocab, char_classes(), {"\u00e9": [(0, 1)]}, 1, 1)
    # a word the vocabulary cannot cover, and one over 100 characters: one [UNK] each
    assert _wordpiece_c.windows("ab " + "a" * 101, vocab, char_classes(), {}, 1, 1) == (
        [(0, 2), (3, 104)],
        [],
    )
    # words left to the tokenizer are reported, not guessed
    assert _wordpiece_c.windows("a \u00e9", vocab, char_classes(), {}, 1, 1) == ([], ["\u00e9"])


@pytest.mark.parametrize("text", ["abc \ud800 def", "ab\udfffcd efg", "caf\u00e9\udc80 x \ud83d"])
def test_lone_surrogates_count_as_the_replacement_character(text: str) -> None:
    # kept in the chunks, tokenized as U+FFFD (which BERT deletes), as LocalEmbeddings does
    replaced = text.translate({c: 0xFFFD for c in range(0xD800, 0xE000)})
    expected = _all_token_spans(replaced)
    assert _native().windows(text, 1, 1) == expected
    assert WordOffsets(local_tokenizer()).windows(text, 1, 1) == expected


def test_a_long_single_line() -> None:
    text = ("tokenization of one very long line, " * 300_000)[:-1]  # 10.8 MB, no newline
    windows = _native().windows(text, 256, 224)
    assert windows == WordOffsets(local_tokenizer()).windows(text, 256, 224)
    assert windows[0][0] == 0 and windows[-1][1] == len(text)
