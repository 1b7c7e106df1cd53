"""Errors of the Google integration.

Every failed call to the Generative Language API surfaces as a
:class:`GoogleAPIError` (or a subclass), after the retry policy gave up where
it applies. Messages name the RPC, the HTTP status and what to do; they never
contain the API key.

Example:
    >>> from ragkit.errors import RagkitError
    >>> err = GoogleAPIError("generateContent failed: 400 bad request", status_code=400, rpc="generateContent")
    >>> isinstance(err, RagkitError), err.status_code
    (True, 400)
"""

from __future__ import annotations

from collections.abc import Sequence

from ragkit.errors import RagkitError


class GoogleAPIError(RagkitError):
    """A call to Google's Generative Language API failed.

    Attributes: ``status_code`` (HTTP status, ``None`` for transport failures),
    ``status`` (e.g. ``"RESOURCE_EXHAUSTED"``, ``"TIMEOUT"``, ``"CONNECTION"``,
    ``"MALFORMED_RESPONSE"``), ``rpc`` (e.g. ``"generateContent"``) and
    ``attempts`` (how many requests were sent).
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
