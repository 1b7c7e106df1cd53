"""init_chat_model: one string picks the chat model everywhere (LangChain's function).

``init_chat_model("gpt-4o-mini", model_provider="openai")``, ``init_chat_model("openai:gpt-4o-mini")``
or ``init_chat_model("gemini-2.0-flash", model_provider="google_genai")``; other keyword
arguments go to the model class (``temperature``, ``base_url``, ``api_key``, ``timeout`` ...).
Without ``model_provider`` or a ``provider:`` prefix the provider is read from the name's
start, as LangChain does (``gpt-``, ``o1``, ``o3``, ``chatgpt``, ``text-davinci`` → openai),
except that ``gemini...`` is ``google_genai`` (LangChain infers ``google_vertexai``, which
ragkit does not have). ``model=None`` gives a model chosen per call from
``config={"configurable": {"model": ..., "model_provider": ...}}``.

Example:
    >>> llm = init_chat_model("openai:gpt-4o-mini", api_key="sk-test-0123456789", temperature=0)
    >>> type(llm).__name__, llm.model_name, llm.temperature
    ('ChatOpenAI', 'gpt-4o-mini', 0.0)
    >>> split_model("gemini-2.0-flash")
    ('google_genai', 'gemini-2.0-flash')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig, ensure_config
from ragkit.errors import ConfigurationError

PROVIDERS: dict[str, tuple[str, str]] = {
    "openai": ("ragkit.models.openai", "ChatOpenAI"),
    "google_genai": ("ragkit.models.google", "ChatGoogleGenerativeAI"),
}
"""Provider name -> (module, class) of its chat model."""

OPENAI_STARTS = ("gpt-", "o1", "o3", "chatgpt", "text-davinci")
_PREFIXES = (
    (OPENAI_STARTS, "openai"),
    (("gemini",), "google_genai"),
)


def _provider_name(provider: str) -> str:
    name = provider.replace("-", "_").lower()
    if name not in PROVIDERS:
        raise ConfigurationError(
            f"Unsupported model_provider={provider!r}; ragkit has {sorted(PROVIDERS)} "
            "(any OpenAI-compatible server is 'openai' with base_url=...)"
        )
    return name


def split_model(model: str, model_provider: str | None = None) -> tuple[str, str]:
    """``(provider, model name)`` of ``model`` (``"provider:name"`` or a name to infer from)."""
    if not model_provider and ":" in model:
        prefix, rest = model.split(":", 1)
        if prefix.replace("-", "_").lower() in PROVIDERS:
            model_provider, model = prefix, rest
    if not model_provider:
        model_provider = next(
            (p for starts, p in _PREFIXES if model.lower().startswith(starts)), None
        )
    if not model_provider:
        raise ConfigurationError(
            f"Unable to infer the model provider of model={model!r}: pass model_provider= "
            f"(one of {sorted(PROVIDERS)}) or write 'provider:{model}'"
        )
    return _provider_name(model_provider), model


def _build(model: str, model_provider: str | None, kwargs: dict[str, Any]) -> Any:
    import importlib

    provider, name = split_model(model, model_provider)
    module, cls = PROVIDERS[provider]
    return getattr(importlib.import_module(module), cls)(model=name, **kwargs)


def init_chat_model(
    model: str | None = None,
    *,
    model_provider: str | None = None,
    configurable_fields: Any = None,
    config_prefix: str | None = None,
    **kwargs: Any,
) -> Any:
    """A chat model from its name (see the module docstring).

    Args:
        model: ``"name"`` or ``"provider:name"``; None for a model picked per call.
        model_provider: ``"openai"`` or ``"google_genai"`` (inferred from the name if None).
        configurable_fields: with ``model=None``, the fields a call's ``configurable`` may set:
            ``"any"``, or a list of names (default ``("model", "model_provider")``).
        config_prefix: the prefix of those keys (``"{prefix}_model"``).
        **kwargs: arguments of the model class.
    """
    if model is not None and configurable_fields is None:
        return _build(model, model_provider, kwargs)
    defaults = dict(kwargs)
    if model is not None:
        defaults["model"] = model
    if model_provider is not None:
        defaults["model_provider"] = model_provider
    fields = ("model", "model_provider") if configurable_fields is None else configurable_fields
    return ConfigurableChatModel(defaults, fields, config_prefix or "")


class ConfigurableChatModel(Runnable[Any, Any]):
    """A chat model built per call from the defaults and the call's ``configurable`` keys.

    Example:
        >>> m = init_chat_model(api_key="sk-test-0123456789")
        >>> m.model_for({"configurable": {"model": "openai:gpt-4o"}}).model_name
        'gpt-4o'
    """

    def __init__(self, defaults: dict[str, Any], fields: str | Sequence[str], prefix: str) -> None:
        self._defaults = defaults
        self._fields = fields
        self._prefix = f"{prefix}_" if prefix else ""
        self._bound: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def _settings(self, config: RunnableConfig | None) -> dict[str, Any]:
        settings = dict(self._defaults)
        for key, value in (ensure_config(config).get("configurable") or {}).items():
            if not key.startswith(self._prefix):
                continue
            name = key[len(self._prefix) :]
            if self._fields == "any" or name in self._fields:
                settings[name] = value
        return settings

    def model_for(self, config: RunnableConfig | None = None) -> Any:
        """The model this call's config picks."""
        settings = self._settings(config)
        model = settings.pop("model", None)
        if not model:
            raise ConfigurationError(
                "init_chat_model() without a model needs config={'configurable': "
                f"{{'{self._prefix}model': 'provider:name'}}}}"
            )
        built = _build(model, settings.pop("model_provider", None), settings)
        for method, args, kwargs in self._bound:
            built = getattr(built, method)(*args, **kwargs)
        return built

    def _with(self, method: str, *args: Any, **kwargs: Any) -> ConfigurableChatModel:
        copy = ConfigurableChatModel(self._defaults, self._fields, self._prefix.rstrip("_"))
        copy._bound = [*self._bound, (method, args, kwargs)]
        return copy

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ConfigurableChatModel:
        return self._with("bind_tools", tools, **kwargs)

    def with_structured_output(self, schema: Any, **kwargs: Any) -> ConfigurableChatModel:
        return self._with("with_structured_output", schema, **kwargs)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self.model_for(config).invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self.model_for(config).ainvoke(input, config, **kwargs)

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        yield from self.model_for(config).stream(input, config, **kwargs)

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        async for chunk in self.model_for(config).astream(input, config, **kwargs):
            yield chunk


__all__ = ["ConfigurableChatModel", "init_chat_model", "split_model"]
