"""Chat models: the base class, a scripted fake, and Google's Gemini (``google`` extra).

Example:
    >>> from ragkit.models import FakeChatModel
    >>> FakeChatModel(["Hello!"]).invoke([("human", "Hi")]).content
    'Hello!'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "BaseChatModel",
    "ChatGoogleGenerativeAI",
    "FakeChatModel",
]

_LAZY = {
    "BaseChatModel": "ragkit.models.base",
    "FakeChatModel": "ragkit.models.fake",
    "ChatGoogleGenerativeAI": "ragkit.models.google",
}

if TYPE_CHECKING:
    from ragkit.models.base import BaseChatModel
    from ragkit.models.fake import FakeChatModel
    from ragkit.models.google import ChatGoogleGenerativeAI
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
