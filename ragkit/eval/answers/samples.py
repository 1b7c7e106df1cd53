"""AnswerSample: one question, the answer a chain gave, what it retrieved and what is expected.

The field names are RAGAS's (``user_input``, ``response``, ``retrieved_contexts``,
``reference``, ``reference_contexts``, ``retrieved_context_ids``, ``reference_context_ids``);
RAGAS's older names (``question``, ``answer``, ``contexts``, ``ground_truth``) are read too.

Example:
    >>> s = to_sample({"question": "Who?", "answer": "Ada", "contexts": ["Ada wrote it."]}, 0)
    >>> s.user_input, s.response, s.retrieved_contexts
    ('Who?', 'Ada', ['Ada wrote it.'])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ragkit.errors import InputTypeError

#: RAGAS's older field names and the names they became.
OLD_NAMES = {
    "question": "user_input",
    "answer": "response",
    "contexts": "retrieved_contexts",
    "ground_truth": "reference",
    "ground_truths": "reference",
}
_TEXT = ("user_input", "response", "reference")
_LISTS = (
    "retrieved_contexts",
    "reference_contexts",
    "retrieved_context_ids",
    "reference_context_ids",
)


@dataclass(frozen=True)
class AnswerSample:
    """One evaluated answer (RAGAS's ``SingleTurnSample`` fields)."""

    user_input: str
    response: str | None = None
    retrieved_contexts: list[str] = field(default_factory=list)
    reference: str | None = None
    reference_contexts: list[str] | None = None
    retrieved_context_ids: list[str] | None = None
    reference_context_ids: list[str] | None = None


def _text(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)  # ``ground_truths`` was a list of strings
    if not isinstance(value, str):
        raise InputTypeError(f"{where}: expected a string, got {type(value).__name__}")
    return value


def _strings(value: Any, where: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise InputTypeError(f"{where}: expected a list of strings, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str | int):
            raise InputTypeError(f"{where}[{i}]: expected a string, got {type(item).__name__}")
        out.append(str(item))
    return out


def to_sample(raw: AnswerSample | Mapping[str, Any], position: int) -> AnswerSample:
    """``raw`` as an :class:`AnswerSample`; an error names the sample (by position) and field."""
    if isinstance(raw, AnswerSample):
        return raw
    if not isinstance(raw, Mapping):
        raise InputTypeError(
            f"sample {position}: expected a mapping or AnswerSample, got {type(raw).__name__}"
        )
    fields: dict[str, Any] = {}
    for key, value in raw.items():
        name = OLD_NAMES.get(key, key)
        if name in fields and key in OLD_NAMES:
            continue  # the RAGAS name wins over the old one
        fields[name] = value
    where = f"sample {position}"
    question = _text(fields.get("user_input"), f"{where}: user_input")
    if not question:
        raise InputTypeError(f"{where}: user_input (or question) is missing or empty")
    lists = {name: _strings(fields.get(name), f"{where}: {name}") for name in _LISTS}
    return AnswerSample(
        user_input=question,
        response=_text(fields.get("response"), f"{where}: response"),
        reference=_text(fields.get("reference"), f"{where}: reference"),
        retrieved_contexts=lists["retrieved_contexts"] or [],
        reference_contexts=lists["reference_contexts"],
        retrieved_context_ids=lists["retrieved_context_ids"],
        reference_context_ids=lists["reference_context_ids"],
    )


__all__ = ["OLD_NAMES", "AnswerSample", "to_sample"]
