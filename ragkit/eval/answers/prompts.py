"""The judge's prompts: one per step of the LLM-judged metrics, each asking for JSON.

Each prompt starts with ``Task: NAME``, says what to do, shows the JSON shape wanted and
gives its inputs as one JSON object after ``Input:``, so a reply is easy to check and a
scripted judge can read the inputs back (see :class:`ragkit.eval.OverlapJudge`).

Example:
    >>> print(render("statements", {"question": "Q?", "text": "A."}).splitlines()[0])
    Task: statements
"""

from __future__ import annotations

import json
from typing import Any

INSTRUCTIONS = {
    "statements": (
        "Split the text into short standalone factual statements, each understandable without "
        "the others (replace pronouns by what they stand for). Leave out greetings and filler.",
        '{"statements": ["...", "..."]}',
    ),
    "faithfulness": (
        "For each statement, decide whether it can be inferred from the context alone: "
        "verdict 1 if it can, 0 if it cannot. Keep the statements in the order given.",
        '{"verdicts": [{"statement": "...", "reason": "...", "verdict": 1}]}',
    ),
    "question": (
        "Write one question that the answer responds to. Set noncommittal to 1 when the answer "
        "evades or is vague (such as 'I don't know'), else 0.",
        '{"question": "...", "noncommittal": 0}',
    ),
    "context_useful": (
        "Decide whether the context was useful in arriving at the given answer to the question: "
        "verdict 1 if it was, 0 if not.",
        '{"reason": "...", "verdict": 1}',
    ),
    "context_recall": (
        "For each statement of the reference answer, decide whether it can be attributed to the "
        "context: attributed 1 if it can, 0 if not. Keep the statements in the order given.",
        '{"classifications": [{"statement": "...", "reason": "...", "attributed": 1}]}',
    ),
    "correctness": (
        "Compare the answer's statements with the reference's. TP: answer statements supported "
        "by the reference; FP: answer statements the reference does not support; FN: reference "
        "statements the answer leaves out. Every statement goes in exactly one list.",
        '{"TP": ["..."], "FP": ["..."], "FN": ["..."]}',
    ),
    "testset": (
        "Write one question a user could ask that this passage answers, and the answer, taken "
        "from the passage. The question must make sense without seeing the passage.",
        '{"question": "...?", "answer": "..."}',
    ),
}


def render(task: str, inputs: dict[str, Any]) -> str:
    """The prompt for ``task`` with ``inputs``."""
    what, shape = INSTRUCTIONS[task]
    return (
        f"Task: {task}\n{what}\nReply with only a JSON object shaped like {shape}\n\n"
        f"Input:\n{json.dumps(inputs, ensure_ascii=False)}"
    )


def read_inputs(prompt: str) -> tuple[str, dict[str, Any]]:
    """``(task, inputs)`` of a prompt made by :func:`render`."""
    first, _, rest = prompt.partition("\n")
    task = first.removeprefix("Task: ").strip()
    _, _, body = rest.partition("\nInput:\n")
    return task, json.loads(body)


__all__ = ["INSTRUCTIONS", "read_inputs", "render"]
