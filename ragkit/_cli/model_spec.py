"""One place that turns a model spec string into a chat model, for every command.

Specs: ``openai:NAME`` (any OpenAI-compatible server, with the command's ``--base-url``),
``gemini:NAME`` (or ``google_genai:NAME``, or a bare Gemini name): both built by
:func:`ragkit._cli.chat_model.make_chat_model` (:class:`ragkit.models.choice.ModelChoice`, the
way every command builds its model, keys from the environment or ``--model-key-file``);
``fake:FILE.json`` (a scripted :class:`ragkit.models.FakeChatModel` replaying the JSON list of
replies in the file) and ``overlap`` (the offline :class:`ragkit.eval.answers.OverlapJudge`).

Example:
    >>> type(chat_model_from_spec("overlap")).__name__
    'OverlapJudge'
    >>> split_spec("gemini:gemini-2.0-flash")
    ('google_genai', 'gemini-2.0-flash')
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError

_PROVIDERS = {"gemini": "google_genai", "google": "google_genai", "google_genai": "google_genai"}


@dataclass(frozen=True)
class ModelSettings:
    """Where and how long: ``--endpoint`` and ``--timeout`` of the command."""

    endpoint: str | None = None
    timeout: float | None = None


def split_spec(spec: str) -> tuple[str, str]:
    """``(provider, name)`` of ``spec``; a bare name is a Gemini model."""
    provider, sep, name = spec.partition(":")
    if not sep:
        return ("overlap", "") if spec == "overlap" else ("google_genai", spec)
    return _PROVIDERS.get(provider, provider), name


def _fake(path: str) -> Any:
    from ragkit.models import FakeChatModel

    try:
        replies = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise ConfigurationError(f"fake:{path}: cannot read the scripted replies: {err}") from None
    if not isinstance(replies, list) or not replies or not all(isinstance(r, str) for r in replies):
        raise ConfigurationError(f"fake:{path}: expected a JSON list of reply strings")
    return FakeChatModel(replies)


def chat_model_from_spec(spec: str, settings: ModelSettings | None = None) -> Any:
    """The chat model ``spec`` names (see the module's docstring)."""
    settings = settings or ModelSettings()
    provider, name = split_spec(spec.strip())
    if provider == "overlap":
        from ragkit.eval.answers.overlap_judge import OverlapJudge

        return OverlapJudge()
    if provider == "fake":
        return _fake(name)
    if provider in ("google_genai", "openai"):
        from ragkit._cli.chat_model import make_chat_model

        if not name:
            raise ConfigurationError(f"model {spec!r}: no model name after the provider")
        return make_chat_model(spec.strip(), settings.endpoint, settings.timeout)
    raise ConfigurationError(
        f"model {spec!r}: unknown provider {provider!r}; use openai:NAME, gemini:NAME, fake:FILE.json or overlap"
    )


__all__ = ["ModelSettings", "chat_model_from_spec", "split_spec"]
