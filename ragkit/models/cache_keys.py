"""How a model call meets the LLM cache: which cache, the key, and the round trip.

The prompt key is the JSON of the messages the model reads (message ids left out, as
LangChain does) or the prompt text; the model key is the JSON of the model's class, its
settings (its ``_identifying_params`` when it defines them, as LangChain's key does, else all
its fields; secrets shown only as ``<secret>``, other objects by type) and the call's stop
words and keyword arguments (bound tools, tool choice, ...). A call whose keyword arguments
are not plain JSON is not cached.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> model = FakeChatModel(["x"])
    >>> prompt, llm = cache_key(model, model._prepare("hi"), None, {"temperature": 0})
    >>> '"temperature": 0' in llm, '"hi"' in prompt
    (True, True)
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import SecretBytes, SecretStr

from ragkit.errors import ConfigurationError
from ragkit.globals import get_llm_cache
from ragkit.messages import BaseMessage, message_to_dict

#: Fields that do not change the reply (and the cache setting itself).
_NOT_SETTINGS = frozenset({"cache", "callbacks", "tags", "metadata", "name", "verbose"})


def _opaque(value: Any) -> str:
    if isinstance(value, SecretStr | SecretBytes):
        return "<secret>"
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def cache_for(model: Any) -> Any:
    """The cache ``model`` uses: its own, the global one, or None (``cache=False``)."""
    own = model.cache
    if own is False:
        return None
    if own is not None and own is not True:
        return own
    found = get_llm_cache()
    if own is True and found is None:
        raise ConfigurationError(
            "cache=True but no LLM cache is set: call ragkit.globals.set_llm_cache(...) first"
        )
    return found


def cache_key(
    model: Any, prepared: Any, stop: list[str] | None, kwargs: dict[str, Any]
) -> tuple[str, str] | None:
    """``(prompt, llm_string)`` for this call, or None when it cannot be keyed safely."""
    try:
        call = json.dumps({"stop": stop, "kwargs": kwargs}, sort_keys=True)
    except (TypeError, ValueError):
        return None
    if isinstance(prepared, str):
        prompt = prepared
    else:
        items = [
            message_to_dict(m.model_copy(update={"id": None}) if isinstance(m, BaseMessage) else m)
            for m in prepared
        ]
        prompt = json.dumps(items, sort_keys=True, ensure_ascii=False)
    settings = model._identifying_params or {
        k: v for k, v in model.__dict__.items() if k not in _NOT_SETTINGS
    }
    kind = f"{type(model).__module__}.{type(model).__qualname__}"
    llm_string = json.dumps(
        {"model": kind, "settings": settings, "call": json.loads(call)},
        sort_keys=True,
        default=_opaque,
        ensure_ascii=False,
    )
    return prompt, llm_string


__all__ = ["cache_for", "cache_key"]
