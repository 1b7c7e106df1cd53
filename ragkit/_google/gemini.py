"""The settings a Gemini generation model has, as a text LLM and as a chat model alike.

``GeminiSettings`` adds the model name and the sampling fields to the connection settings;
:class:`~ragkit.models.ChatGoogleGenerativeAI` and :class:`~ragkit.llms.GoogleGenerativeAI`
both mix it in, so the two classes take the same arguments and check them the same way.

Example:
    >>> GeminiSettings(model="gemini-1.5-flash", max_tokens=64, google_api_key="k").max_output_tokens
    64
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, field_validator

from ragkit._google.settings import GoogleSettings
from ragkit.errors import ChatGoogleGenerativeAIError, ConfigurationError, GoogleAPIError


class GeminiSettings(GoogleSettings):
    """Model name, sampling settings and safety settings of a Gemini model."""

    model_config = ConfigDict(
        populate_by_name=True,
        arbitrary_types_allowed=True,
        protected_namespaces=(),
        hide_input_in_errors=True,  # the inputs include the API key
    )

    model: str
    """The model name, e.g. ``"gemini-1.5-flash"`` or ``"models/gemini-1.5-pro"``."""
    temperature: float | None = 0.7
    top_p: float | None = None
    top_k: int | None = None
    max_output_tokens: int | None = Field(default=None, alias="max_tokens")
    n: int = 1
    """How many candidates to generate; the message is candidate 0, all texts go to response_metadata["candidates"]."""
    safety_settings: dict[Any, Any] | None = None
    """``{harm category: block threshold}``, names or numbers, e.g. ``{"HARM_CATEGORY_HARASSMENT": "BLOCK_NONE"}``."""

    @field_validator("model")
    @classmethod
    def _model(cls, value: str) -> str:
        if not value or not value.strip("/"):
            raise ConfigurationError(
                f"{cls.__name__}: model must name a Gemini model, e.g. 'gemini-1.5-flash'"
            )
        return value

    @field_validator("n")
    @classmethod
    def _n(cls, value: int) -> int:
        if value < 1:
            raise ConfigurationError(f"{cls.__name__}: n must be >= 1, got {value}")
        return value

    @property
    def _llm_type(self) -> str:
        return "google_gemini"

    def _error_class(self) -> type[GoogleAPIError]:
        return ChatGoogleGenerativeAIError
