"""What a model's ``_generate`` returns: LangChain's output classes (``langchain_core.outputs``).

A text LLM's ``_stream`` yields :class:`GenerationChunk`\\ s and its ``_generate`` returns an
:class:`LLMResult`; a chat model's ``_generate`` returns a :class:`ChatResult` of
:class:`ChatGeneration`\\ s and its ``_stream`` yields :class:`ChatGenerationChunk`\\ s. The
Runnable methods unwrap them: ``stream`` gives strings (LLMs) or message chunks (chat models).

Example:
    >>> (GenerationChunk(text="Hel") + GenerationChunk(text="lo")).text
    'Hello'
    >>> from ragkit.messages import AIMessage
    >>> ChatGeneration(message=AIMessage(content="hi")).text
    'hi'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, model_validator

from ragkit.messages import BaseMessage


def _merged_info(
    left: dict[str, Any] | None, right: dict[str, Any] | None
) -> dict[str, Any] | None:
    merged = {**(left or {}), **(right or {})}
    return merged or None


class Generation(BaseModel):
    """One text a model generated, with the provider's ``generation_info``."""

    text: str
    generation_info: dict[str, Any] | None = None
    type: Literal["Generation"] = "Generation"


class GenerationChunk(Generation):
    """A piece of a streamed :class:`Generation`; chunks add up with ``+``."""

    def __add__(self, other: GenerationChunk) -> GenerationChunk:
        if not isinstance(other, GenerationChunk):
            return NotImplemented
        return GenerationChunk(
            text=self.text + other.text,
            generation_info=_merged_info(self.generation_info, other.generation_info),
        )


class ChatGeneration(Generation):
    """One message a chat model generated; ``text`` is the message's text."""

    text: str = ""
    message: BaseMessage
    type: Literal["ChatGeneration"] = "ChatGeneration"  # type: ignore[assignment]

    @model_validator(mode="after")
    def _set_text(self) -> ChatGeneration:
        self.text = self.message.text
        return self


class ChatGenerationChunk(ChatGeneration):
    """A piece of a streamed :class:`ChatGeneration` (its ``message`` is a message chunk)."""

    type: Literal["ChatGenerationChunk"] = "ChatGenerationChunk"  # type: ignore[assignment]

    def __add__(self, other: Any) -> ChatGenerationChunk:
        others = other if isinstance(other, list) else [other]
        if not all(isinstance(o, ChatGenerationChunk) for o in others):
            return NotImplemented
        message: Any = self.message
        info = self.generation_info
        for chunk in others:
            message = message + chunk.message
            info = _merged_info(info, chunk.generation_info)
        return ChatGenerationChunk(message=message, generation_info=info)


class ChatResult(BaseModel):
    """What a chat model's ``_generate`` returns: its generations and provider output."""

    generations: list[ChatGeneration]
    llm_output: dict[str, Any] | None = None


class LLMResult(BaseModel):
    """The result of ``generate``: one list of generations per prompt, in the prompts' order."""

    generations: list[list[Generation]]
    llm_output: dict[str, Any] | None = None
    type: Literal["LLMResult"] = "LLMResult"
