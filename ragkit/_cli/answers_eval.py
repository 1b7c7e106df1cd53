"""``ragkit eval --answers``: run retrieval and answering over questions, then score the answers.

Each line of the questions file is a JSON object with the question (``user_input``,
``question``, ``query`` or ``text``) and, optionally, the ``reference`` answer (or
``ground_truth``) and the relevant sources (``reference_context_ids``: ids matched against
the end of each retrieved passage's source, as ``ragkit eval --index`` matches them).

Example:
    >>> # result = run_answers(AnswerRun("bikes", "questions.jsonl", model, judge))
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit._io.safe_read import parse_json_line
from ragkit.errors import ConfigurationError

_QUESTION_KEYS = ("user_input", "question", "query", "text")


@dataclass
class AnswerRun:
    """What ``ragkit eval --answers`` runs: where, with which models, and how."""

    index: str
    questions: str
    model: Any
    judge: Any = None
    embeddings: Any = None
    retriever: str = "hybrid"
    k: int = 4
    metrics: list[str] | None = None
    max_concurrency: int = 8


def read_questions(path: str) -> list[dict[str, Any]]:
    """The questions file's records; an error names the file and line."""
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise ConfigurationError(f"--answers {path}: {err.strerror or err}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        record = parse_json_line(line, f"{path}:{number}", ConfigurationError)
        question = next(
            (record.get(k) for k in _QUESTION_KEYS if isinstance(record, dict) and record.get(k)),
            None,
        )
        if not isinstance(question, str):
            raise ConfigurationError(f"{path}:{number}: no question ({', '.join(_QUESTION_KEYS)})")
        reference = record.get("reference", record.get("ground_truth"))
        out.append(
            {
                "user_input": question,
                "reference": reference,
                "reference_context_ids": record.get("reference_context_ids"),
            }
        )
    if not out:
        raise ConfigurationError(f"--answers {path}: no questions in the file")
    return out


def _source_id(doc: Any, wanted: list[str] | None) -> str:
    source = str(doc.metadata.get("source", ""))
    for ident in wanted or ():
        stem = source.rsplit("/", 1)[-1]
        if source.endswith(ident) or stem == ident or stem.rsplit(".", 1)[0] == ident:
            return ident
    return source


def answer_samples(run: AnswerRun) -> list[dict[str, Any]]:
    """Each question with the passages retrieved for it and the model's answer."""
    from ragkit._cli.ask import answer
    from ragkit.indexing.index_dir import Index
    from ragkit.querying.service import Query, QueryService

    service = QueryService(Index.open(run.index))
    samples = []
    for record in read_questions(run.questions):
        docs = service.search(Query(record["user_input"], run.retriever, run.k, None, None))
        response = answer(record["user_input"], docs, model=run.model)
        samples.append(
            {
                **record,
                "response": response,
                "retrieved_contexts": [d.page_content for d in docs],
                "retrieved_context_ids": [
                    _source_id(d, record["reference_context_ids"]) for d in docs
                ],
            }
        )
    return samples


def run_answers(run: AnswerRun) -> tuple[Any, list[dict[str, Any]]]:
    """The :class:`ragkit.eval.AnswerEvalResult` of ``run``, and the samples it scored."""
    from ragkit.eval.answers.evaluate import evaluate_answers
    from ragkit.eval.answers.options import EvalOptions

    samples = answer_samples(run)
    metrics = run.metrics
    if metrics is None and run.judge is None:
        metrics = ["exact_match", "token_f1", "citations_retrieved", "citations_relevant"]
    result = evaluate_answers(
        samples,
        metrics,
        judge=run.judge,
        embeddings=run.embeddings,
        options=EvalOptions(max_concurrency=run.max_concurrency),
    )
    return result, samples


def report(
    result: Any, samples: list[dict[str, Any]], as_json: bool, output_path: str | None
) -> None:
    """Print the summary (or everything as JSON); write the JSON report to ``output_path``."""
    from ragkit._cli import output

    data = {**result.to_dict(), "samples": samples}
    if output_path:
        Path(output_path).write_text(
            json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8"
        )
    if as_json:
        output.emit_json(data)
        return
    print(result.to_markdown())
    failed = result.failures
    if failed:
        output.err(f"note: {len(failed)} failed judgment(s), left out of the means:")
        for j in failed[:5]:
            output.err(f"  sample {j.sample} {j.metric}: {j.detail}")


__all__ = ["AnswerRun", "answer_samples", "read_questions", "report", "run_answers"]
