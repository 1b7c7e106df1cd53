"""The request and reply bodies of ``/query``, ``/ask`` and ``/info`` (also the OpenAPI schemas).

Requests are strict: a field of the wrong type (``"k": "5"``), an unknown field
(a typo such as ``"top_k"``) or a missing query is a 422 naming the field.

Example:
    >>> QueryRequest.model_validate({"query": "reset", "k": 3}).k
    3
    >>> from pydantic import ValidationError
    >>> try:
    ...     QueryRequest.model_validate({"query": "reset", "k": "3"})
    ... except ValidationError as err:
    ...     print(err.errors()[0]["loc"], err.errors()[0]["type"])
    ('k',) int_type
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SearchFields(_Strict):
    retriever: str | None = Field(
        None,
        description="similarity, mmr, bm25, hybrid, parent or multi-query (with a chat model); "
        "see GET /info for this server's list and default",
    )
    k: int | None = Field(
        None, ge=1, description="How many passages (at most the server's max_k; see /info)"
    )
    filter: dict[str, Any] | None = Field(
        None,
        description="Metadata filter in LangChain's dict language, e.g. "
        '{"source": "guide/tyres.md"} or {"page": {"$gte": 2}}; matched against the metadata '
        "as results show it; unknown keys are a 422",
    )
    dedupe: bool | float | None = Field(
        None,
        description="Fold near-duplicate passages (true, or a similarity threshold in (0, 1])",
    )


class QueryRequest(SearchFields):
    """``POST /query``: search the index."""

    query: str = Field(description="What to search for")


class AskRequest(SearchFields):
    """``POST /ask``: retrieve passages and answer from them, citing them as [1], [2], ..."""

    question: str = Field(description="The question to answer")
    chat_history: list[Any] | None = Field(
        None,
        description='Earlier turns, e.g. [["human", "hi"], ["ai", "hello"]] or '
        '[{"role": "user", "content": "hi"}]',
    )
    stream: bool = Field(
        True,
        description="true: Server-Sent Events (sources, token..., answer, end); "
        "false: one JSON reply",
    )


class ScoreKindModel(BaseModel):
    name: str
    label: str
    higher_is_better: bool | None
    description: str
    hint: str = ""


class Passage(BaseModel):
    """One ranked passage."""

    rank: int
    id: str | None
    source: str | None = Field(description="Path relative to the indexed folders (or a URL)")
    score: float | None
    snippet: str = Field(description="The part of the text around the first query word")
    text: str
    duplicates: list[str] = Field(default_factory=list)
    metadata: dict[str, Any]


class QueryResponse(BaseModel):
    query: str
    retriever: str
    k: int
    score_kind: ScoreKindModel
    terms: list[str] = Field(description="The query words the page highlights")
    results: list[Passage]
    snapshot: str | None
    took_ms: float


class AskResponse(BaseModel):
    question: str
    retriever: str
    answer: str | None
    citations: list[dict[str, Any]] = Field(
        description='[{"number": n, "rank": rank of the cited passage or null}]'
    )
    sources: list[Passage]
    notice: str | None = None


class ErrorDetail(BaseModel):
    status: int
    code: str
    message: str
    field: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorDetail
