"""ModelChoice: the chat model a command or the server uses, from ``--model``, ``--base-url``,
``--model-key-file`` and ``--timeout`` (one object; it never holds the key itself).

``model`` is ``"openai:NAME"``, ``"gemini:NAME"`` / ``"google_genai:NAME"``, or a bare name:
a bare name is read as :func:`~ragkit.models.init_chat_model` reads it (``gpt-*`` → OpenAI),
and otherwise is a Gemini model, as ragkit's commands always took it. ``base_url`` is the
OpenAI-compatible server (``http://127.0.0.1:11434/v1``) or the Gemini endpoint. The key comes
from ``key_file`` (read when the model is built, stripped, never shown), else the provider's
environment variable (``OPENAI_API_KEY``; ``GOOGLE_API_KEY`` / ``GEMINI_API_KEY``).

Example:
    >>> ModelChoice("openai:llama3.1", base_url="http://127.0.0.1:11434/v1").provider_and_name()
    ('openai', 'llama3.1')
    >>> ModelChoice("gemini:gemini-2.0-flash").provider_and_name(), ModelChoice("my-tuned").provider_and_name()
    (('google_genai', 'gemini-2.0-flash'), ('google_genai', 'my-tuned'))
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.models.init_model import OPENAI_STARTS as _OPENAI_STARTS

_ALIASES = {"gemini": "google_genai", "google": "google_genai"}
KEY_VARIABLES = {
    "openai": ("OPENAI_API_KEY",),
    "google_genai": ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
}


def read_key_file(path: str) -> str:
    """The key in ``path`` (surrounding whitespace stripped); errors name the file, never the key."""
    from ragkit._google.keys import clean_api_key

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise ConfigurationError(f"cannot read the model key file {path}: {reason}") from None
    return clean_api_key(text, f"the model key file {path}").get_secret_value()


@dataclass(frozen=True)
class ModelChoice:
    """Which chat model, where, with which key file, how long a request may take."""

    model: str
    base_url: str | None = None
    key_file: str | None = None
    timeout: float | None = None

    def provider_and_name(self) -> tuple[str, str]:
        """``(provider, name)``; an unknown ``word:`` prefix is an error naming the choices."""
        prefix, sep, rest = self.model.partition(":")
        provider = _ALIASES.get(prefix.lower(), prefix.replace("-", "_").lower())
        if sep and provider in KEY_VARIABLES:
            return provider, rest
        if sep and re.fullmatch(r"[a-z_-]+", prefix.lower()):
            raise ConfigurationError(
                f"model {self.model!r}: unknown provider {prefix!r}; use openai:NAME (any "
                "OpenAI-compatible server, with --base-url) or gemini:NAME"
            )
        if self.model.lower().startswith(_OPENAI_STARTS):
            return "openai", self.model
        return "google_genai", self.model

    def has_key(self) -> bool:
        """Whether a key is at hand (a key file, or the provider's environment variable)."""
        if self.key_file:
            return True
        provider, _ = self.provider_and_name()
        return any(os.environ.get(v, "").strip() for v in KEY_VARIABLES[provider])

    def key_help(self) -> str:
        """What to set for a key (for messages)."""
        provider, _ = self.provider_and_name()
        names = " or ".join(KEY_VARIABLES[provider])
        return f"{names} (or --model-key-file FILE)"

    def build(self) -> Any:
        """The chat model (reads the key file now)."""
        provider, name = self.provider_and_name()
        if not name:
            raise ConfigurationError(f"model {self.model!r}: no model name after the provider")
        kwargs: dict[str, Any] = {}
        if self.key_file:  # each class takes the key by its LangChain name
            name_of_key = "api_key" if provider == "openai" else "google_api_key"
            kwargs[name_of_key] = read_key_file(self.key_file)
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout
        if provider == "openai":
            from ragkit.models.openai import ChatOpenAI

            return ChatOpenAI(model=name, base_url=self.base_url, **kwargs)
        from ragkit.models.google import ChatGoogleGenerativeAI

        if self.base_url:
            kwargs["client_options"] = {"api_endpoint": self.base_url}
        return ChatGoogleGenerativeAI(model=name, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """As JSON for the server's worker processes (the key file's path, not the key)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelChoice:
        return cls(
            model=str(data["model"]),
            base_url=data.get("base_url"),
            key_file=data.get("key_file"),
            timeout=data.get("timeout"),
        )


__all__ = ["ModelChoice", "read_key_file"]
