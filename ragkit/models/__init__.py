"""Chat models: the base class, a scripted fake, and Google's Gemini (``google`` extra)."""

from typing import TYPE_CHECKING, Any

from ragkit.models.base import BaseChatModel
from ragkit.models.fake import FakeChatModel

if TYPE_CHECKING:
    from ragkit.models.google import ChatGoogleGenerativeAI

__all__ = ["BaseChatModel", "ChatGoogleGenerativeAI", "FakeChatModel"]


def __getattr__(name: str) -> Any:
    if name == "ChatGoogleGenerativeAI":
        from ragkit.models.google import ChatGoogleGenerativeAI

        return ChatGoogleGenerativeAI
    raise AttributeError(f"module 'ragkit.models' has no attribute {name!r}")
