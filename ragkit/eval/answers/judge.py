"""Asking the judge: one prompt, a JSON reply checked against a schema, within a bound.

Every call goes through :class:`Judge`, which keeps at most ``max_concurrency`` calls in
flight and gives each ``timeout`` seconds. A reply that is not the JSON asked for, a
refusal, a timeout or an error raised by the model becomes a :class:`JudgeFailure` with its
kind (``nonsense``, ``refused``, ``timeout``, ``error``), which the metric records as a failed
judgment: never a crash, never a zero.

Example:
    >>> import asyncio
    >>> from pydantic import BaseModel
    >>> from ragkit.models import FakeChatModel
    >>> class Verdict(BaseModel):
    ...     verdict: int
    >>> judge = Judge(FakeChatModel(['{"verdict": 1}']))
    >>> asyncio.run(judge.ask("Is it?", Verdict)).verdict
    1
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ragkit.errors import ConfigurationError, RagkitError

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_REFUSAL = re.compile(
    r"\b(I can(?:no|')t|I am unable|I'm unable|I am sorry|I'm sorry|I won't|as an AI)\b", re.I
)


class JudgeFailure(RagkitError):
    """The judge gave no usable verdict; ``kind`` is nonsense, refused, timeout or error."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_reply(text: str, schema: type[T]) -> T:
    """The JSON object in ``text`` (bare or in a code fence) as ``schema``, or a JudgeFailure."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        kind = "refused" if _REFUSAL.search(text) else "nonsense"
        raise JudgeFailure(kind, f"no JSON object in the judge's reply: {_short(text)!r}")
    try:
        data = json.loads(body[start : end + 1])
    except json.JSONDecodeError as err:
        raise JudgeFailure("nonsense", f"malformed JSON ({err.msg}): {_short(text)!r}") from None
    try:
        return schema.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        place = ".".join(str(p) for p in first["loc"]) or "reply"
        raise JudgeFailure(
            "nonsense", f"{place}: {first['msg']} in the judge's reply {_short(text)!r}"
        ) from None


class Judge:
    """A chat model used as judge: bounded concurrency, a timeout per call, checked replies.

    ``calls`` counts the calls made, ``peak`` the most that were in flight at once.
    """

    def __init__(self, model: Any, *, max_concurrency: int = 8, timeout: float = 60.0) -> None:
        if max_concurrency < 1:
            raise ConfigurationError("max_concurrency must be at least 1")
        self.model = model
        self.timeout = timeout
        self.max_concurrency = max_concurrency
        self._gate: asyncio.Semaphore | None = None
        self.calls = 0
        self.peak = 0
        self._in_flight = 0

    def _semaphore(self) -> asyncio.Semaphore:
        if self._gate is None:  # made on first use, inside the running loop
            self._gate = asyncio.Semaphore(self.max_concurrency)
        return self._gate

    async def text(self, prompt: str) -> str:
        """The judge's reply to ``prompt`` as text (a JudgeFailure on timeout or error)."""
        async with self._semaphore():
            self.calls += 1
            self._in_flight += 1
            self.peak = max(self.peak, self._in_flight)
            try:
                reply = await asyncio.wait_for(
                    self.model.ainvoke([("human", prompt)]), timeout=self.timeout
                )
            except TimeoutError:
                raise JudgeFailure("timeout", f"no reply within {self.timeout:g} s") from None
            except Exception as err:  # noqa: BLE001 - any model error is a failed judgment
                raise JudgeFailure("error", f"{type(err).__name__}: {_short(str(err))}") from None
            finally:
                self._in_flight -= 1
        content = getattr(reply, "content", reply)
        if not isinstance(content, str):
            content = getattr(reply, "text", None) or json.dumps(content, default=str)
        return str(content)

    async def ask(self, prompt: str, schema: type[T]) -> T:
        """The judge's reply to ``prompt``, parsed as ``schema``."""
        return parse_reply(await self.text(prompt), schema)


__all__ = ["Judge", "JudgeFailure", "parse_reply"]
