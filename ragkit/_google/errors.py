"""The Google errors' old import path; they live in :mod:`ragkit.errors`.

Example:
    >>> from ragkit._google.errors import GoogleAPIError
    >>> GoogleAPIError.__module__
    'ragkit.errors'
"""

from ragkit.errors import (
    ChatGoogleGenerativeAIError,
    DoesNotExistsException,
    GoogleAPIError,
    GoogleEmbeddingsError,
    GoogleUploadError,
)

__all__ = [
    "ChatGoogleGenerativeAIError",
    "DoesNotExistsException",
    "GoogleAPIError",
    "GoogleEmbeddingsError",
    "GoogleUploadError",
]
