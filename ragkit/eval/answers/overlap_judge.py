"""OverlapJudge: a scripted, offline judge that answers the judge's prompts by word overlap.

It reads the task and inputs of each prompt (:mod:`ragkit.eval.answers.prompts`) and replies
with the JSON asked for, deciding by the share of a statement's content words found in the
other text. It is no substitute for a model's judgement: it is there so that notebooks,
benchmarks and tests run the whole evaluation offline, in any order and concurrently
(replies depend on the prompt, not on the order of calls). A prompt that is not a judge
prompt gets the first sentence of the first numbered passage, cited as ``[1]``, so it can
also stand in for the answering model of a RAG chain.

Example:
    >>> from ragkit.eval.answers.prompts import render
    >>> judge = OverlapJudge()
    >>> judge.invoke(render("context_useful", {"question": "q", "context": "Oil the chain.", "answer": "oil chain"})).content
    '{"verdict": 1, "reason": "overlap 1.00"}'
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.eval.answers.prompts import INSTRUCTIONS, read_inputs
from ragkit.messages import AIMessage, BaseMessage
from ragkit.models.base import BaseChatModel

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the of to in on at for and or is are was were be been it its this that with by as "
    "from do does did how what when where which who why can should i you your my".split()
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_VAGUE = re.compile(r"\b(don't know|do not know|not sure|cannot answer|no information)\b", re.I)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def overlap(statement: str, other: str) -> float:
    """The share of ``statement``'s content words that occur in ``other`` (1.0 if it has none)."""
    words = _words(statement)
    return len(words & _words(other)) / len(words) if words else 1.0


def sentences(text: str) -> list[str]:
    return [
        s.strip() for s in _SENTENCE.split(re.sub(r"\[\d+(?:,\s*\d+)*\]", "", text)) if s.strip()
    ]


class OverlapJudge(BaseChatModel):
    """Replies to judge prompts by word overlap; ``threshold`` is the share that counts as support."""

    threshold: float = 0.5
    latency: float = 0.0
    """Seconds each reply takes (to stand in for a remote judge in benchmarks)."""

    def _reply(self, task: str, x: dict[str, Any]) -> dict[str, Any]:
        t = self.threshold
        if task == "statements":
            return {"statements": sentences(x["text"])}
        if task in ("faithfulness", "context_recall"):
            key = "verdict" if task == "faithfulness" else "attributed"
            items = [
                {"statement": s, key: int(overlap(s, x["context"]) >= t)} for s in x["statements"]
            ]
            return {"verdicts" if task == "faithfulness" else "classifications": items}
        if task == "question":
            words = " ".join(_WORD.findall(x["answer"].lower())[:12])
            return {
                "question": f"What about {words}?",
                "noncommittal": int(bool(_VAGUE.search(x["answer"]))),
            }
        if task == "context_useful":
            score = overlap(x["answer"], x["context"])
            return {"verdict": int(score >= t * 0.6), "reason": f"overlap {score:.2f}"}
        if task == "correctness":
            answer, reference = x["answer"], x["reference"]
            ref_text, ans_text = " ".join(reference), " ".join(answer)
            tp = [s for s in answer if overlap(s, ref_text) >= t]
            fp = [s for s in answer if overlap(s, ref_text) < t]
            fn = [s for s in reference if overlap(s, ans_text) < t]
            return {"TP": tp, "FP": fp, "FN": fn}
        if task == "testset":
            first = (sentences(x["passage"]) or [x["passage"]])[0]
            topic = " ".join([w for w in _WORD.findall(first.lower()) if w not in _STOP][:6])
            return {"question": f"What does the guide say about {topic}?", "answer": first}
        raise ConfigurationError(f"OverlapJudge has no answer for the task {task!r}")

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AIMessage:
        if self.latency:
            time.sleep(self.latency)
        prompt = messages[-1].text
        if prompt.startswith("Task: ") and prompt.split("\n", 1)[0][6:] in INSTRUCTIONS:
            task, inputs = read_inputs(prompt)
            return AIMessage(content=json.dumps(self._reply(task, inputs)))
        passage = re.search(r"\[1\][^\n]*\n(.+)", prompt)
        first = (
            sentences(passage.group(1))[0]
            if passage and sentences(passage.group(1))
            else "I don't know."
        )
        return AIMessage(content=f"{first} [1]" if passage else first)


__all__ = ["OverlapJudge", "overlap", "sentences"]
