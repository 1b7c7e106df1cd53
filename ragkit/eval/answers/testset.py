"""generate_testset: questions with reference answers and their source passages, from chunks.

The steps, each reproducible with ``seed``:

1. candidates: chunks with at least ``min_words`` words, duplicates (same normalised text)
   dropped; shuffled with ``random.Random(seed)``;
2. the model writes one question and answer per chunk (concurrently, bounded), in that order,
   until ``size`` are kept or the chunks run out (at most ``size * 3`` chunks are asked);
3. filtered: a reply that is not the JSON asked for, a question without ``?`` or under three
   words, an answer whose content words are mostly not in the passage (< ``grounding``), and a
   question that repeats an earlier one (same normalised words, or word Jaccard >= 0.8) are
   dropped, each counted by reason.

Example:
    >>> from ragkit.documents import Document
    >>> from ragkit.eval.answers.overlap_judge import OverlapJudge
    >>> docs = [Document(page_content="Pump road tyres to 80 to 100 psi before every ride. " * 3, metadata={"source": "tyres.md"})]
    >>> ts = generate_testset(docs, OverlapJudge(), TestsetOptions(size=1, min_words=5))
    >>> ts.records[0]["reference_context_ids"], ts.dropped
    (['tyres.md'], {})
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ragkit.documents import Document
from ragkit.eval.answers.evaluate import run_sync
from ragkit.eval.answers.judge import Judge, JudgeFailure
from ragkit.eval.answers.lexical import normalize
from ragkit.eval.answers.overlap_judge import overlap
from ragkit.eval.answers.prompts import render


@dataclass(frozen=True)
class TestsetOptions:
    """How many, from which chunks, how strict, and the seed."""

    __test__ = False  # not a pytest class

    size: int = 50
    seed: int = 0
    min_words: int = 30
    grounding: float = 0.6
    max_concurrency: int = 8
    timeout: float = 60.0


@dataclass
class Testset:
    """The kept records (``user_input``, ``reference``, ``reference_contexts``,
    ``reference_context_ids``) and how many replies were dropped, by reason."""

    __test__ = False

    records: list[dict[str, Any]] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    asked: int = 0


class _Pair(BaseModel):
    question: str
    answer: str


def candidates(docs: Sequence[Document], options: TestsetOptions) -> list[Document]:
    """Chunks long enough, each text once, in a seeded random order."""
    seen: set[str] = set()
    out = []
    for d in docs:
        key = normalize(d.page_content)
        if len(key.split()) >= options.min_words and key not in seen:
            seen.add(key)
            out.append(d)
    random.Random(options.seed).shuffle(out)
    return out


def _jaccard(a: str, b: str) -> float:
    x, y = set(a.split()), set(b.split())
    return len(x & y) / len(x | y) if x | y else 1.0


def _problem(pair: _Pair, passage: str, kept: list[str], options: TestsetOptions) -> str | None:
    question = pair.question.strip()
    if not question.endswith("?") or len(question.split()) < 3:
        return "not a question"
    if not pair.answer.strip() or overlap(pair.answer, passage) < options.grounding:
        return "answer not in the passage"
    key = normalize(question)
    if any(key == k or _jaccard(key, k) >= 0.8 for k in kept):
        return "duplicate question"
    return None


async def _ask(judge: Judge, doc: Document) -> _Pair | str:
    try:
        return await judge.ask(render("testset", {"passage": doc.page_content}), _Pair)
    except JudgeFailure as failure:
        return f"model: {failure.kind}"


async def agenerate_testset(
    docs: Sequence[Document], model: Any, options: TestsetOptions
) -> Testset:
    """The async form of :func:`generate_testset`."""
    judge = Judge(model, max_concurrency=options.max_concurrency, timeout=options.timeout)
    pool = candidates(docs, options)[: options.size * 3]
    replies = await asyncio.gather(*(_ask(judge, d) for d in pool))
    out, dropped = Testset(asked=len(pool)), Counter[str]()
    kept: list[str] = []
    for doc, reply in zip(pool, replies, strict=True):
        if len(out.records) == options.size:
            break
        if isinstance(reply, str):
            dropped[reply] += 1
            continue
        reason = _problem(reply, doc.page_content, kept, options)
        if reason is not None:
            dropped[reason] += 1
            continue
        kept.append(normalize(reply.question))
        out.records.append(
            {
                "user_input": reply.question.strip(),
                "reference": reply.answer.strip(),
                "reference_contexts": [doc.page_content],
                "reference_context_ids": [str(doc.metadata.get("source", ""))],
            }
        )
    out.dropped = dict(dropped)
    return out


def generate_testset(
    docs: Sequence[Document], model: Any, options: TestsetOptions | None = None
) -> Testset:
    """Questions with reference answers from ``docs`` (chunks), written by ``model``.

    The same chunks, seed and (deterministic) model give the same test set.
    """
    return run_sync(agenerate_testset(docs, model, options or TestsetOptions()))


__all__ = ["Testset", "TestsetOptions", "agenerate_testset", "candidates", "generate_testset"]
