"""Errors raised by ragkit.

Every error ragkit raises on purpose is a :class:`RagkitError`. Subclasses also
inherit from the built-in exception a LangChain user would catch (``ValueError``,
``KeyError``, ``TypeError``, ``RecursionError``), so existing ``except`` clauses
keep working.

Example:
    >>> from ragkit.errors import RagkitError, OutputParserException
    >>> try:
    ...     raise OutputParserException("not JSON", llm_output="hello")
    ... except RagkitError as err:
    ...     err.llm_output
    'hello'
"""

from __future__ import annotations

from typing import Any


class RagkitError(Exception):
    """Base class of every error ragkit raises deliberately."""


class ConfigurationError(RagkitError, ValueError):
    """A setting is missing or invalid (names the setting and what to do)."""


class InvalidRunnableError(RagkitError, TypeError):
    """Something that is not a Runnable (nor coercible to one) was used as one."""


class RecursionLimitError(RagkitError, RecursionError):
    """A chain recursed deeper than ``recursion_limit`` in its config."""


class MissingVariablesError(RagkitError, KeyError):
    """A prompt was formatted without some of its input variables."""

    def __init__(self, message: str, missing: list[str]) -> None:
        super().__init__(message)
        self.message = message
        self.missing = missing

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class OutputParserException(RagkitError, ValueError):
    """A parser could not parse a model's output.

    ``llm_output`` carries the offending text so callers can log or re-prompt.
    """

    def __init__(
        self,
        error: Any,
        observation: str | None = None,
        llm_output: str | None = None,
        send_to_llm: bool = False,
    ) -> None:
        super().__init__(error)
        self.observation = observation
        self.llm_output = llm_output
        self.send_to_llm = send_to_llm


class LLMChainError(RagkitError):
    """A failure of :class:`ragkit.chains.LLMChain`.

    ``type`` is a short machine-readable string such as
    ``"exceeded_failure_count"``, ``"all_fallbacks_failed"`` or ``"exceeded_max_runs"``.
    """

    def __init__(self, message: str, type: str, original: BaseException | None = None) -> None:
        super().__init__(message)
        self.type = type
        self.original = original


class StoreError(RagkitError):
    """A vector store or key-value store cannot do what was asked (names the store, file or key)."""


class InvalidKeyError(StoreError, ValueError):
    """A key-value store key is malformed or would escape the store's root directory."""


class IndexNotFoundError(StoreError, FileNotFoundError):
    """No saved index exists at the given path (or it is not a ragkit index)."""


class IndexCorruptedError(StoreError, ValueError):
    """A saved index is damaged, truncated or not in ragkit's format; the message names the file."""


class EmbeddingMismatchError(StoreError, ValueError):
    """Vectors from another model, or of another dimension, were mixed into a store."""


class LoaderError(RagkitError):
    """A document source could not be read or parsed (names the file and what to do)."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class EncryptedFileError(LoaderError):
    """A file is encrypted and no (correct) password was given."""


class UnsupportedFileError(LoaderError):
    """No loader handles this file (unknown extension, or binary content where text was expected)."""


class SplitterInputError(RagkitError, ValueError):
    """A splitter was given input it cannot split (e.g. text that is not JSON for the JSON splitter)."""


class EmptyCorpusError(RagkitError, ValueError):
    """An index or retriever was asked to build over zero documents."""


class InvalidQueryError(RagkitError, ValueError):
    """A retriever got a query it cannot search for (not a string, bad ``k``, unknown option)."""


class IndexFormatError(IndexCorruptedError):
    """A saved retriever index (BM25, parent/child map) is unreadable, from another version or
    inconsistent (names the file). A kind of :class:`IndexCorruptedError`, so one ``except`` covers both."""


class DatasetError(RagkitError, ValueError):
    """An evaluation dataset is missing a file or has a malformed line (names the file and line)."""


class IndexingError(RagkitError):
    """Incremental indexing or an index directory cannot do what was asked (names the path)."""


class IndexLockedError(IndexingError, TimeoutError):
    """Another process holds the index's writer lock (names the index and the lock file)."""


class IndexMismatchError(IndexingError, EmbeddingMismatchError):
    """An index directory was built with another embedding model or settings than the ones given."""


class IndexDamagedError(IndexingError, IndexCorruptedError):
    """An index directory is missing files or holds unreadable ones (names the file and what to do)."""


class ToolException(RagkitError, ValueError):
    """A tool could not run: bad arguments, or the tool reported a failure."""


class ToolTimeoutError(ToolException, TimeoutError):
    """A tool did not finish within its timeout."""


class ChatHistoryError(RagkitError, ValueError):
    """A stored chat history cannot be read (names the file or table and what to do)."""


class DiskFullError(IndexingError, OSError):
    """A write ran out of disk space (or quota); what was there before is kept (names the path).

    ``path`` is the index or file the failed write was for.
    """

    path: str | None = None

    def __str__(self) -> str:  # OSError would prefix "[Errno 28]"
        return str(self.strerror) if self.strerror else super().__str__()
