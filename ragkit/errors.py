"""Errors raised by ragkit.

Every error ragkit raises on purpose is a :class:`RagkitError`. Subclasses also
inherit from the built-in exception a LangChain user would catch (``ValueError``,
``TypeError``, ``KeyError``, ``RuntimeError`` ...), so existing ``except`` clauses
keep working. The tree (further base classes in brackets)::

    RagkitError
    ├── ConfigurationError [ValueError]
    ├── InvalidInputError [ValueError]
    │   ├── InvalidQueryError
    │   └── SplitterInputError
    ├── InputTypeError [TypeError]
    ├── InvalidRunnableError [TypeError]
    ├── AsyncOnlyError [TypeError]
    ├── NoActiveRunError [RuntimeError]
    ├── RecursionLimitError [RecursionError]
    ├── TemplateError [ValueError]
    ├── MissingVariablesError [KeyError]
    ├── OutputParserException [ValueError]
    ├── ToolException [ValueError]
    │   └── ToolTimeoutError [TimeoutError]
    ├── ToolSchemaError [ValueError]
    ├── LLMChainError
    ├── RoutingError [ValueError]
    ├── SQLDatabaseError
    │   ├── UnsafeQueryError [ValueError]
    │   └── QueryTimeoutError [TimeoutError]
    ├── LoaderError
    │   ├── EncryptedFileError
    │   └── UnsupportedFileError
    ├── StoreError
    │   ├── InvalidKeyError [ValueError]
    │   ├── StoreInputError [ValueError]
    │   ├── IndexNotFoundError [FileNotFoundError]
    │   ├── IndexCorruptedError [IndexingError, ValueError]
    │   ├── EmbeddingMismatchError [ValueError]
    │   └── DatabaseError
    │       ├── DatabaseConnectionError [ConnectionError]
    │       │   └── DatabaseAuthenticationError [PermissionError]
    │       └── VectorExtensionError [RuntimeError]
    ├── IndexingError
    │   ├── IndexLockedError [TimeoutError]
    │   ├── IndexMismatchError [EmbeddingMismatchError]
    │   └── DiskFullError [OSError]
    ├── EmptyCorpusError [ValueError]
    ├── DatasetError [ValueError]
    ├── ChatHistoryError [ValueError]
    ├── ServeError
    │   ├── RequestError [ValueError]
    │   └── RemoteRunnableError
    ├── GoogleAPIError
    │   ├── ChatGoogleGenerativeAIError
    │   ├── GoogleEmbeddingsError
    │   ├── DoesNotExistsException
    │   └── GoogleUploadError
    └── OpenAIAPIError

Aliases kept for older ``except`` clauses: ``IndexFormatError`` and
``IndexDamagedError`` are :class:`IndexCorruptedError` (one class for "this index
is broken", whether a saved store, a retriever's index or an index directory).

Example:
    >>> from ragkit.errors import RagkitError, OutputParserException
    >>> try:
    ...     raise OutputParserException("not JSON", llm_output="hello")
    ... except RagkitError as err:
    ...     err.llm_output
    'hello'
    >>> issubclass(ConfigurationError, ValueError), IndexDamagedError is IndexCorruptedError
    (True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# typing_extensions costs ~10 ms at import time, and `import ragkit` loads this module
if TYPE_CHECKING:
    from typing_extensions import Self


class RagkitError(Exception):
    """Base class of every error ragkit raises deliberately."""


# -- arguments, inputs and runnables ---------------------------------------------------------
class ConfigurationError(RagkitError, ValueError):
    """A setting or argument is missing or invalid (names the setting and what to do)."""


class InvalidInputError(RagkitError, ValueError):
    """A component got input it cannot use: texts that are not strings, a message with an
    unknown role, tool-call arguments that are not a JSON object (names the row or field)."""


class InvalidQueryError(InvalidInputError):
    """A search got a query it cannot run: not a string, a bad ``k`` or ``lambda_mult``,
    a malformed metadata filter (names the option or the place in the filter)."""


class SplitterInputError(InvalidInputError):
    """A splitter was given input it cannot split (e.g. text that is not JSON for the JSON splitter)."""


class InputTypeError(RagkitError, TypeError):
    """A component got an argument or input of a type it does not take (names both types)."""


class InvalidRunnableError(RagkitError, TypeError):
    """Something that is not a Runnable (nor coercible to one) was used as one."""


class AsyncOnlyError(RagkitError, TypeError):
    """A runnable that wraps only an async function was called synchronously; use ``ainvoke``/``astream``."""


class NoActiveRunError(RagkitError, RuntimeError):
    """Something that belongs to a run (a custom event) was used outside any running runnable."""


class RecursionLimitError(RagkitError, RecursionError):
    """A chain recursed deeper than ``recursion_limit`` in its config."""


# -- prompts, parsers, tools and chains ------------------------------------------------------
class TemplateError(RagkitError, ValueError):
    """A prompt template is malformed: an unclosed mustache section, a positional ``{}`` field,
    an unknown message role (names the template and what to write instead)."""


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


class ToolException(RagkitError, ValueError):
    """A tool could not run: bad arguments, or the tool reported a failure."""


class ToolTimeoutError(ToolException, TimeoutError):
    """A tool did not finish within its timeout."""


class ToolSchemaError(RagkitError, ValueError):
    """A tool's schema cannot be built, or cannot be sent to the model in its API's dialect
    (names the tool and the field)."""


class LLMChainError(RagkitError):
    """A failure of :class:`ragkit.chains.LLMChain`.

    ``type`` is a short machine-readable string such as
    ``"exceeded_failure_count"``, ``"all_fallbacks_failed"`` or ``"exceeded_max_runs"``.
    """

    def __init__(self, message: str, type: str, original: BaseException | None = None) -> None:
        super().__init__(message)
        self.type = type
        self.original = original


class RoutingError(RagkitError, ValueError):
    """A router chose a route that does not exist, or could not choose one (lists the routes)."""


class SQLDatabaseError(RagkitError):
    """A SQL query could not run against the database (names the query and the reason)."""


class UnsafeQueryError(SQLDatabaseError, ValueError):
    """A generated SQL query was refused before it ran: not a single read-only SELECT
    (``DROP``, ``UPDATE``, several statements, ...). Nothing was executed."""

    def __init__(self, message: str, query: str) -> None:
        super().__init__(message)
        self.query = query


class QueryTimeoutError(SQLDatabaseError, TimeoutError):
    """A SQL query ran longer than the statement timeout and was cancelled."""


# -- loaders -----------------------------------------------------------------------------------
class LoaderError(RagkitError):
    """A document source could not be read or parsed (names the file and what to do)."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class EncryptedFileError(LoaderError):
    """A file is encrypted and no (correct) password was given."""


class UnsupportedFileError(LoaderError):
    """No loader handles this file (unknown extension, or binary content where text was expected)."""


# -- stores and indexes ------------------------------------------------------------------------
class StoreError(RagkitError):
    """A vector store or key-value store cannot do what was asked (names the store, file or key)."""


class IndexingError(RagkitError):
    """Incremental indexing or an index directory cannot do what was asked (names the path)."""


class InvalidKeyError(StoreError, ValueError):
    """A key or id is malformed, names something outside the store, or would escape the
    store's root directory."""


class StoreInputError(StoreError, ValueError):
    """A store cannot take this call: texts, metadatas, vectors and ids that do not match one
    to one, duplicate or unknown ids, metadata it cannot keep exactly, or a call out of order
    (names the rows or keys and what to do)."""


class IndexNotFoundError(StoreError, FileNotFoundError):
    """No saved index exists at the given path (or it is not a ragkit index)."""


class IndexCorruptedError(StoreError, IndexingError, ValueError):
    """A saved index is damaged, truncated, inconsistent or not in ragkit's format: a store's
    files, a retriever's index (BM25, parent/child map) or an index directory (names the file
    and what to do)."""


IndexFormatError = IndexCorruptedError
IndexDamagedError = IndexCorruptedError


class EmbeddingMismatchError(StoreError, ValueError):
    """Vectors from another model, of another dimension or distance, were mixed into a store."""


class IndexLockedError(IndexingError, TimeoutError):
    """Another process holds the index's writer lock (names the index and the lock file)."""


class IndexMismatchError(IndexingError, EmbeddingMismatchError):
    """An index directory was built with another embedding model or settings than the ones given."""


class DiskFullError(IndexingError, OSError):
    """A write ran out of disk space (or quota); what was there before is kept (names the path).

    ``path`` is the index or file the failed write was for.
    """

    path: str | None = None

    def __str__(self) -> str:  # OSError would prefix "[Errno 28]"
        return str(self.strerror) if self.strerror else super().__str__()


class EmptyCorpusError(RagkitError, ValueError):
    """An index or retriever was asked to build over zero documents."""


# -- evaluation and chat history ---------------------------------------------------------------
class DatasetError(RagkitError, ValueError):
    """An evaluation dataset is missing a file or has a malformed line (names the file and line)."""


class ChatHistoryError(RagkitError, ValueError):
    """A stored chat history cannot be read (names the file or table and what to do)."""


# -- serving over HTTP ------------------------------------------------------------------------
class ServeError(RagkitError):
    """``ragkit serve`` and the HTTP client could not do what was asked."""


class RequestError(ServeError, ValueError):
    """The server rejected a request: the reply is a 4xx JSON error with this ``status_code``,
    a short ``code`` (``invalid_request``, ``unknown_retriever``, ``too_large``, ...) and the
    ``field`` at fault when there is one.

    Example:
        >>> err = RequestError("k must be at most 100", status_code=422, field="k")
        >>> err.status_code, err.code, err.field
        (422, 'invalid_request', 'k')
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int = 400,
        code: str = "invalid_request",
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.code = code
        self.field = field


class RemoteRunnableError(ServeError):
    """A :class:`ragkit.serve.RemoteRunnable` call failed: the server answered with an error
    status (``status_code``) or an error event, or could not be reached (``status_code`` None).
    The message is the server's, never a header or an API key.

    LangServe's client raises ``httpx.HTTPStatusError`` here instead.
    """

    def __init__(self, message: str, *, status_code: int | None = None, url: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.url = url


# -- OpenAI-compatible servers ------------------------------------------------------------------
class OpenAIAPIError(RagkitError):
    """A call to an OpenAI-compatible server failed, after the configured retries where they
    apply (429, 5xx, timeouts, connection failures), or its reply was unusable (not JSON, a stream
    cut before its end). The message names the server's URL and the status; never the API key.

    Attributes: ``url`` (the server's base URL), ``status_code`` (``None`` for transport
    failures), ``code`` (the server's error code, e.g. ``"model_not_found"``, or ``"TIMEOUT"``,
    ``"CONNECTION"``, ``"MALFORMED_RESPONSE"``, ``"STREAM_CUT"``).

    Example:
        >>> err = OpenAIAPIError("failed", url="http://127.0.0.1:8000/v1", status_code=500)
        >>> isinstance(err, RagkitError), err.status_code, err.url
        (True, 500, 'http://127.0.0.1:8000/v1')
    """

    def __init__(
        self, message: str, *, url: str, status_code: int | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.url = url
        self.status_code = status_code
        self.code = code


# -- Google ------------------------------------------------------------------------------------
class GoogleAPIError(RagkitError):
    """A call to Google's Generative Language API failed, after the retry policy gave up
    where it applies. Messages name the RPC, the HTTP status and what to do; never the API key.

    Attributes: ``status_code`` (HTTP status, ``None`` for transport failures),
    ``status`` (e.g. ``"RESOURCE_EXHAUSTED"``, ``"TIMEOUT"``, ``"CONNECTION"``,
    ``"MALFORMED_RESPONSE"``), ``rpc`` (e.g. ``"generateContent"``) and
    ``attempts`` (how many requests were sent).

    Example:
        >>> err = GoogleAPIError("generateContent failed: 400", status_code=400, rpc="generateContent")
        >>> isinstance(err, RagkitError), err.status_code
        (True, 400)
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        status: str | None = None,
        rpc: str | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.status = status
        self.rpc = rpc
        self.attempts = attempts

    @classmethod
    def restating(cls, message: str, error: GoogleAPIError) -> Self:
        """This kind of error, saying ``message``, with ``error``'s status, rpc and attempts.

        Example:
            >>> cause = GoogleAPIError("quota", status_code=429, rpc="embedContent", attempts=3)
            >>> GoogleEmbeddingsError.restating("embedding failed: quota", cause).attempts
            3
        """
        return cls(
            message,
            status_code=error.status_code,
            status=error.status,
            rpc=error.rpc,
            attempts=error.attempts,
        )


class ChatGoogleGenerativeAIError(GoogleAPIError):
    """A Gemini chat call failed: API error, blocked prompt or a message the API cannot take."""


class GoogleEmbeddingsError(GoogleAPIError):
    """A Google embeddings call failed."""


class DoesNotExistsException(GoogleAPIError):
    """The corpus or document does not exist (or this API key may not see it).

    The service answers 403 for a corpus that does not exist, so "forbidden"
    and "missing" cannot be told apart; both raise this error.
    """


class GoogleUploadError(GoogleAPIError):
    """A bulk upload to a corpus document finished with failed batches.

    ``written_ids`` are the chunk names now present (written by this call or an
    earlier one); ``failed_ids`` those that are not; ``errors`` the error of each
    failed batch. Rerunning the same upload writes only what is missing.
    """

    def __init__(
        self,
        message: str,
        *,
        written_ids: Sequence[str],
        failed_ids: Sequence[str],
        errors: Sequence[GoogleAPIError],
    ) -> None:
        last = errors[-1] if errors else None
        super().__init__(
            message,
            status_code=last.status_code if last else None,
            status=last.status if last else None,
            rpc="batchCreateChunks",
            attempts=sum(e.attempts for e in errors),
        )
        self.written_ids = list(written_ids)
        self.failed_ids = list(failed_ids)
        self.errors = list(errors)


# -- PostgreSQL ----------------------------------------------------------------------------------
class DatabaseError(StoreError):
    """A database behind a store (PostgreSQL) failed or refused a request; the message names the
    server (never its password) and what to do.

    Example:
        >>> isinstance(DatabaseError("PostgreSQL at db:5432 failed"), StoreError)
        True
    """


class DatabaseConnectionError(DatabaseError, ConnectionError):
    """The database server cannot be reached, refused the credentials, or dropped the connection
    (after one retry)."""


class DatabaseAuthenticationError(DatabaseConnectionError, PermissionError):
    """The database server refused the user name or password of the connection string."""


class VectorExtensionError(DatabaseError, RuntimeError):
    """The database has no usable ``vector`` extension (pgvector): not installed on the server, or
    not created in the database and the user may not create it."""
