"""BaseCache (LangChain's interface) and the JSON form cached replies take.

A cache maps ``(prompt, llm_string)`` to the list of generations a model returned: the
prompt is the JSON of the messages (or the text) the model read, the ``llm_string`` the JSON
of the model's class, settings and call parameters (stop words, bound tools, ...). Caches
that write to disk or a database store :func:`generations_to_json`, never pickle.

Example:
    >>> from ragkit.messages import AIMessage
    >>> from ragkit.models.outputs import ChatGeneration
    >>> data = generations_to_json([ChatGeneration(message=AIMessage(content="hi"))])
    >>> generations_from_json(data)[0].message.content
    'hi'
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from ragkit.core.base import run_in_executor
from ragkit.errors import ConfigurationError
from ragkit.messages import message_to_dict, messages_from_dict
from ragkit.models.outputs import ChatGeneration, Generation

RETURN_VAL_TYPE = Sequence[Generation]


class BaseCache(ABC):
    """Where model replies are kept: ``lookup``, ``update`` and ``clear`` (and async forms)."""

    @abstractmethod
    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """The generations kept for this prompt and model, or None."""

    @abstractmethod
    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Keep ``return_val`` for this prompt and model."""

    @abstractmethod
    def clear(self, **kwargs: Any) -> None:
        """Forget everything."""

    async def alookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        return await run_in_executor(self.lookup, prompt, llm_string)

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        await run_in_executor(self.update, prompt, llm_string, return_val)

    async def aclear(self, **kwargs: Any) -> None:
        await run_in_executor(self.clear, **kwargs)


def generations_to_json(generations: RETURN_VAL_TYPE) -> str:
    """The JSON text of ``generations`` (chat messages with their tool calls and metadata)."""
    items: list[dict[str, Any]] = []
    for g in generations:
        if isinstance(g, ChatGeneration):
            items.append(
                {"message": message_to_dict(g.message), "generation_info": g.generation_info}
            )
        else:
            items.append({"text": g.text, "generation_info": g.generation_info})
    return json.dumps(items, ensure_ascii=False, sort_keys=True)


def generations_from_json(text: str) -> list[Generation]:
    """The generations :func:`generations_to_json` wrote."""
    out: list[Generation] = []
    for item in json.loads(text):
        if "message" in item:
            [message] = messages_from_dict([item["message"]])
            out.append(ChatGeneration(message=message, generation_info=item.get("generation_info")))
        else:
            out.append(Generation(text=item["text"], generation_info=item.get("generation_info")))
    return out


def digest(text: str) -> str:
    """A short fixed-length key for a long prompt or llm_string (SHA-256, hex)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_json(generations: RETURN_VAL_TYPE) -> str:
    """``generations`` as JSON, or a ConfigurationError saying what cannot be stored."""
    try:
        return generations_to_json(generations)
    except (TypeError, ValueError) as err:
        raise ConfigurationError(f"a cached reply must be JSON: {err}") from None


__all__ = [
    "RETURN_VAL_TYPE",
    "BaseCache",
    "check_json",
    "digest",
    "generations_from_json",
    "generations_to_json",
]
