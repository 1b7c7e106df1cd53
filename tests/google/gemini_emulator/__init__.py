"""A local emulator of Google's Generative Language REST API (v1 and v1beta) for ragkit's tests.

Covers generateContent, streamGenerateContent (streamed JSON array),
countTokens, embedContent, batchEmbedContents, corpora/documents/chunks CRUD,
corpora:query, documents:query and generateAnswer, with fault injection
(:meth:`Emulator.fail`), scripted replies (:meth:`Emulator.reply`) and a
request log (:meth:`Emulator.requests`). Standard library only; bound to
127.0.0.1 on a port the OS picks.
"""

from .common import ApiError
from .faults import Fault
from .server import Emulator, LoggedRequest

__all__ = ["ApiError", "Emulator", "Fault", "LoggedRequest"]
