"""generateAnswer (Attributed Question Answering) of the emulator.

The answer comes from the passage sharing most words with the question:
EXTRACTIVE returns its best sentence verbatim, ABSTRACTIVE prefixes it with
"Based on the sources, ", VERBOSE returns the whole passage.
``answerableProbability`` is the share of question words found in that
passage. Attributions list up to three passages with any overlap, best first,
as ``groundingPassage`` (inline passages) or ``semanticRetrieverChunk``.
"""

from __future__ import annotations

import re
from typing import Any

from .common import FINISH_STOP, ApiError, content_text, enum, require
from .corpora import CorpusState
from .text import overlap

STYLES = {1: "ABSTRACTIVE", 2: "EXTRACTIVE", 3: "VERBOSE"}


def _best_sentence(question: str, passage: str) -> str:
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", passage.strip()) if s]
    return max(sentences, key=lambda s: overlap(question, s)) if sentences else passage


def _passages(
    body: dict[str, Any], question: str, corpora: CorpusState
) -> list[tuple[dict[str, Any], str]]:
    """``(source_id, text)`` of every candidate passage."""
    inline = body.get("inlinePassages")
    retriever = body.get("semanticRetriever")
    require(
        bool(inline) != bool(retriever),
        "Exactly one of inline_passages and semantic_retriever must be set",
    )
    if inline:
        out = []
        for passage in inline.get("passages", []):
            require(bool(passage.get("id")), "Every inline passage needs an id")
            out.append(
                (
                    {"groundingPassage": {"passageId": passage["id"], "partIndex": 0}},
                    content_text(passage.get("content")),
                )
            )
        return out
    source = str(retriever.get("source", ""))
    query = content_text(retriever.get("query"))
    require(bool(query.strip()), "* semantic_retriever.query: must not be empty")
    if "/documents/" in source:
        corpora.document(source)
    else:
        corpora.corpus(source)
    with corpora._lock:
        ranked = corpora.rank(
            source + "/",
            query,
            retriever.get("metadataFilters", []),
            retriever.get("maxChunksCount") or 5,
            float(retriever.get("minimumRelevanceScore", 0)),
        )
    return [
        (
            {"semanticRetrieverChunk": {"source": source, "chunk": r["chunk"]["name"]}},
            r["chunk"]["data"]["stringValue"],
        )
        for r in ranked["relevantChunks"]
    ]


def generate_answer(body: dict[str, Any], model: str, corpora: CorpusState) -> dict[str, Any]:
    if model != "models/aqa":
        raise ApiError(
            404,
            f"{model} is not found for API version v1beta, or is not supported for generateAnswer.",
        )
    contents = body.get("contents") or []
    require(bool(contents), "* GenerateAnswerRequest.contents: contents is not specified")
    style = STYLES.get(enum(body.get("answerStyle", 0), STYLES))
    require(
        style is not None, "* GenerateAnswerRequest.answer_style: answer style must be specified"
    )
    question = content_text(contents[-1])
    if "BLOCK_ME" in question:
        return {
            "inputFeedback": {
                "blockReason": 1,
                "safetyRatings": [{"category": 10, "probability": 4, "blocked": True}],
            }
        }
    passages = _passages(body, question, corpora)
    scored = sorted(
        ((overlap(question, text), source, text) for source, text in passages), key=lambda t: -t[0]
    )
    if not scored or scored[0][0] == 0:
        return {
            "answer": {
                "content": {"role": "model", "parts": [{"text": ""}]},
                "finishReason": FINISH_STOP,
            },
            "answerableProbability": 0.0,
        }
    score, _, best = scored[0]
    sentence = _best_sentence(question, best)
    text = {
        "EXTRACTIVE": sentence,
        "ABSTRACTIVE": f"Based on the sources, {sentence}",
        "VERBOSE": best,
    }[style]
    attributions = [
        {"sourceId": source, "content": {"parts": [{"text": passage}]}}
        for s, source, passage in scored[:3]
        if s > 0
    ]
    return {
        "answer": {
            "content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": FINISH_STOP,
            "index": 0,
            "groundingAttributions": attributions,
        },
        "answerableProbability": round(score, 4),
    }
