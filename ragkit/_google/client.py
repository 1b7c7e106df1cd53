"""GoogleClient: every call ragkit makes to the ``google-generativeai`` SDK, in one place.

Takes and returns plain dicts (snake_case field names, enums as names such as
``"STOP"``), so the rest of ragkit never sees SDK types and a later switch to
another SDK touches only this module. Each call gets a timeout, the SDK's own
retries are switched off and :class:`~ragkit._google.retry.RetryPolicy` is
applied instead; an ``{"error": ...}`` object in the middle of a streamed reply
(which the SDK silently turns into an empty response) raises. Errors are the
``error_class`` given (a :class:`GoogleAPIError`), never contain the API key,
and every retry is logged on the ``ragkit.google`` logger.

Example:
    >>> from pydantic import SecretStr
    >>> from ragkit._google.connection import GoogleConnection
    >>> client = GoogleClient(
    ...     GoogleConnection(SecretStr("k"), client_options={"api_endpoint": "http://127.0.0.1:9"})
    ... )
    >>> client  # doctest: +ELLIPSIS
    GoogleClient(endpoint='http://127.0.0.1:9', transport='rest', timeout=60.0)
    >>> # client.generate_content({"model": "models/gemini-1.5-flash", "contents": [...]})
"""

from __future__ import annotations

import json
import logging
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ragkit._google.connection import GoogleConnection
from ragkit._google.keys import redact
from ragkit._google.retry import Failure, StreamError, classify
from ragkit.errors import GoogleAPIError

logger = logging.getLogger("ragkit.google")
T = TypeVar("T")

# FutureWarnings the SDK stack emits on import (end of support, Python version policy); others stay visible.
_IMPORT_WARNINGS = (
    r"[\s\S]*google\.generativeai[\s\S]*",
    r"[\s\S]*Google will stop supporting[\s\S]*",
)
_sdk_lock = threading.Lock()
_sdk: Any = None


def import_sdk() -> Any:
    """The SDK's ``google.ai.generativelanguage`` module (imports ``google.generativeai`` once)."""
    global _sdk
    with _sdk_lock:
        if _sdk is None:
            with warnings.catch_warnings():
                for pattern in _IMPORT_WARNINGS:
                    warnings.filterwarnings("ignore", message=pattern, category=FutureWarning)
                try:
                    import google.ai.generativelanguage as glm
                    import google.generativeai  # noqa: F401 - the pinned SDK that brings glm
                except ImportError as e:
                    from ragkit.errors import ConfigurationError

                    raise ConfigurationError(
                        "The Google integration needs google-generativeai: pip install 'ragkit[google]'"
                    ) from e
            _sdk = glm
        return _sdk


def to_dict(message: Any) -> dict[str, Any]:
    """A proto-plus message as a dict (snake_case keys, enum names)."""
    return type(message).to_dict(
        message, use_integers_for_enums=False, preserving_proto_field_name=True
    )


def _hook_stream_errors(stream: Any) -> bool:
    """Make the SDK's REST stream iterator raise on ``{"error": ...}`` objects instead of dropping them."""
    ready = getattr(stream, "_ready_objs", None)
    grab = getattr(stream, "_grab", None)
    if ready is None or not callable(grab):
        return False

    def checked_grab() -> Any:
        head = ready[0]
        if head.startswith('{"error"'):
            ready.popleft()
            raise StreamError(json.loads(head)["error"])
        return grab()

    stream._grab = checked_grab
    return True


_HINTS = {
    "INVALID_ARGUMENT": "check the request (model name, parameters, content)",
    "UNAUTHENTICATED": "check the API key (GOOGLE_API_KEY)",
    "PERMISSION_DENIED": "check the API key (GOOGLE_API_KEY) and that the resource exists and belongs to it",
    "NOT_FOUND": "check the model or resource name",
    "RESOURCE_EXHAUSTED": "the quota or rate limit is exhausted; wait, slow down or raise max_retries",
    "MALFORMED_RESPONSE": "the service (or a proxy in between) sent a broken reply",
}


class GoogleClient:
    """One configured connection to the Generative Language API (v1beta) through the SDK."""

    def __init__(
        self,
        connection: GoogleConnection,
        *,
        error_class: type[GoogleAPIError] = GoogleAPIError,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.connection = connection
        self._api_key = connection.api_key
        self.transport = connection.transport
        self.client_options = dict(connection.client_options)
        self.timeout = connection.timeout
        self.retry = connection.retry
        self.error_class = error_class
        self._sleep = sleep
        self._services: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"GoogleClient(endpoint={self.endpoint!r}, transport={self.transport!r}, timeout={self.timeout!r})"

    @property
    def endpoint(self) -> str:
        return self.connection.endpoint

    # -- plumbing ----------------------------------------------------------------
    def _service(self, kind: str) -> Any:
        with self._lock:
            if kind not in self._services:
                glm = import_sdk()
                from google.api_core.client_options import ClientOptions
                from google.api_core.gapic_v1.client_info import ClientInfo
                from google.generativeai import __version__ as sdk_version

                options = ClientOptions(
                    api_key=self._api_key.get_secret_value(), **self.client_options
                )
                cls = (
                    glm.GenerativeServiceClient
                    if kind == "generative"
                    else glm.RetrieverServiceClient
                )
                self._services[kind] = cls(
                    transport=self.transport,
                    client_options=options,
                    client_info=ClientInfo(user_agent=f"genai-py/{sdk_version} ragkit"),
                )
            return self._services[kind]

    def _scrub(self, text: str) -> str:
        return redact(text, self._api_key)

    def _error(self, rpc: str, failure: Failure, attempts: int, note: str = "") -> GoogleAPIError:
        code = f"HTTP {failure.status_code} " if failure.status_code else ""
        hint = _HINTS.get(failure.status, "")
        if failure.status == "TIMEOUT":
            hint = f"raise timeout (now {self.timeout}s) or check the service at {self.endpoint}"
        elif failure.status == "CONNECTION":
            hint = f"check that {self.endpoint} is reachable (client_options['api_endpoint'])"
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        text = f"{rpc} failed{tries}: {code}{failure.status}: {failure.message}{note}"
        if hint:
            text += f" ({hint})"
        return self.error_class(
            self._scrub(text),
            status_code=failure.status_code,
            status=failure.status,
            rpc=rpc,
            attempts=attempts,
        )

    def _backoff(self, rpc: str, failure: Failure, retry_index: int) -> None:
        wait = self.retry.delay(retry_index, failure.server_delay)
        code = failure.status_code or failure.status
        logger.warning(
            "%s: %s %s; retry %d of %d in %.3gs",
            rpc,
            code,
            self._scrub(failure.message)[:200],
            retry_index + 1,
            self.retry.max_retries,
            wait,
        )
        self._sleep(wait)

    def _call(self, rpc: str, fn: Callable[[], T]) -> T:
        """``fn()`` under the retry policy; failures become ``error_class``."""
        retry_index = 0
        while True:
            try:
                return fn()
            except Exception as exc:  # noqa: BLE001 - classified, retried or re-raised as error_class
                failure = classify(exc)
            # Raised outside the except block: the SDK's exception (whose text may echo secrets) is not kept.
            if not failure.retryable or retry_index >= self.retry.max_retries:
                raise self._error(rpc, failure, retry_index + 1)
            self._backoff(rpc, failure, retry_index)
            retry_index += 1

    def _proto(self, name: str, data: dict[str, Any]) -> Any:
        return getattr(import_sdk(), name)(data)

    def _rpc(self, kind: str, method: str, request_type: str, data: dict[str, Any]) -> Any:
        request = self._proto(request_type, data)
        call = getattr(self._service(kind), method)
        return self._call(
            _rpc_name(method), lambda: call(request=request, timeout=self.timeout, retry=None)
        )

    # -- generative service --------------------------------------------------------
    def generate_content(self, request: dict[str, Any]) -> dict[str, Any]:
        return to_dict(
            self._rpc("generative", "generate_content", "GenerateContentRequest", request)
        )

    def stream_generate_content(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Streamed responses; retried only while nothing has been yielded yet."""
        proto = self._proto("GenerateContentRequest", request)
        rpc = "streamGenerateContent"
        retry_index = 0
        while True:
            yielded = False
            stream = None
            try:
                stream = self._service("generative").stream_generate_content(
                    request=proto, timeout=self.timeout, retry=None
                )
                hooked = _hook_stream_errors(stream)
                for response in stream:
                    data = to_dict(response)
                    if not hooked and not (
                        data.get("candidates")
                        or data.get("usage_metadata")
                        or data.get("prompt_feedback")
                    ):
                        raise StreamError(
                            {
                                "code": 500,
                                "status": "INTERNAL",
                                "message": "the stream carried an empty object (an error the SDK dropped)",
                            }
                        )
                    yielded = True
                    yield data
                return
            except Exception as exc:  # noqa: BLE001 - classified, retried or re-raised as error_class
                failure = classify(exc)
            finally:
                if stream is not None and hasattr(stream, "cancel"):
                    stream.cancel()
            if yielded or not failure.retryable or retry_index >= self.retry.max_retries:
                note = " (the stream broke off after partial output)" if yielded else ""
                raise self._error(rpc, failure, retry_index + 1, note)
            self._backoff(rpc, failure, retry_index)
            retry_index += 1

    def count_tokens(self, request: dict[str, Any]) -> int:
        return int(
            self._rpc("generative", "count_tokens", "CountTokensRequest", request).total_tokens
        )

    def embed_content(self, request: dict[str, Any]) -> list[float]:
        return list(
            self._rpc(
                "generative", "embed_content", "EmbedContentRequest", request
            ).embedding.values
        )

    def batch_embed_contents(self, model: str, requests: list[dict[str, Any]]) -> list[list[float]]:
        response = self._rpc(
            "generative",
            "batch_embed_contents",
            "BatchEmbedContentsRequest",
            {"model": model, "requests": requests},
        )
        return [list(e.values) for e in response.embeddings]

    def generate_answer(self, request: dict[str, Any]) -> dict[str, Any]:
        return to_dict(self._rpc("generative", "generate_answer", "GenerateAnswerRequest", request))

    # -- retriever service (corpora, documents, chunks) -------------------------------
    def create_corpus(self, corpus: dict[str, Any]) -> dict[str, Any]:
        return to_dict(
            self._rpc("retriever", "create_corpus", "CreateCorpusRequest", {"corpus": corpus})
        )

    def get_corpus(self, name: str) -> dict[str, Any]:
        return to_dict(self._rpc("retriever", "get_corpus", "GetCorpusRequest", {"name": name}))

    def delete_corpus(self, name: str, force: bool = False) -> None:
        self._rpc(
            "retriever", "delete_corpus", "DeleteCorpusRequest", {"name": name, "force": force}
        )

    def create_document(self, parent: str, document: dict[str, Any]) -> dict[str, Any]:
        return to_dict(
            self._rpc(
                "retriever",
                "create_document",
                "CreateDocumentRequest",
                {"parent": parent, "document": document},
            )
        )

    def get_document(self, name: str) -> dict[str, Any]:
        return to_dict(self._rpc("retriever", "get_document", "GetDocumentRequest", {"name": name}))

    def delete_document(self, name: str, force: bool = False) -> None:
        self._rpc(
            "retriever", "delete_document", "DeleteDocumentRequest", {"name": name, "force": force}
        )

    def list_documents(self, parent: str) -> list[dict[str, Any]]:
        return self._pages(
            "list_documents", "ListDocumentsRequest", {"parent": parent}, "documents", page_size=20
        )

    def batch_create_chunks(
        self, parent: str, chunks: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        requests = [{"parent": parent, "chunk": chunk} for chunk in chunks]
        response = self._rpc(
            "retriever",
            "batch_create_chunks",
            "BatchCreateChunksRequest",
            {"parent": parent, "requests": requests},
        )
        return [to_dict(c) for c in response.chunks]

    def get_chunk(self, name: str) -> dict[str, Any]:
        return to_dict(self._rpc("retriever", "get_chunk", "GetChunkRequest", {"name": name}))

    def list_chunks(self, parent: str) -> list[dict[str, Any]]:
        return self._pages("list_chunks", "ListChunksRequest", {"parent": parent}, "chunks")

    def delete_chunk(self, name: str) -> None:
        self._rpc("retriever", "delete_chunk", "DeleteChunkRequest", {"name": name})

    def batch_delete_chunks(self, parent: str, names: list[str]) -> None:
        self._rpc(
            "retriever",
            "batch_delete_chunks",
            "BatchDeleteChunksRequest",
            {"parent": parent, "requests": [{"name": n} for n in names]},
        )

    def query_corpus(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        response = self._rpc("retriever", "query_corpus", "QueryCorpusRequest", request)
        return [to_dict(c) for c in response.relevant_chunks]

    def query_document(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        response = self._rpc("retriever", "query_document", "QueryDocumentRequest", request)
        return [to_dict(c) for c in response.relevant_chunks]

    def _pages(
        self,
        method: str,
        request_type: str,
        request: dict[str, Any],
        field: str,
        page_size: int = 100,
    ) -> list[dict[str, Any]]:
        """Every item of a paged list call (each page request retried on its own)."""
        items: list[dict[str, Any]] = []
        token = ""
        while True:
            page = self._rpc(
                "retriever",
                method,
                request_type,
                {**request, "page_size": page_size, "page_token": token},
            )
            items.extend(to_dict(item) for item in getattr(page, field))
            token = page.next_page_token
            if not token:
                return items


def _rpc_name(method: str) -> str:
    """``batch_create_chunks`` -> ``batchCreateChunks`` (the REST method name)."""
    head, *rest = method.split("_")
    return head + "".join(part.title() for part in rest)
