"""The answer step of ``/ask``: numbered passages in the prompt, ``[n]`` citations out.

The prompt is :func:`ragkit.chains.rag.default_prompt` with citations (the one
``create_rag_chain(..., citations=True)`` uses): passages numbered ``[1]``,
``[2]``, ... in rank order, so ``[n]`` in the answer is the passage of rank
``n``.

Example:
    >>> from ragkit import Document
    >>> from ragkit.models import FakeChatModel
    >>> chain = answer_chain(FakeChatModel(["Pump to 4 bar [1]."]))
    >>> text = chain.invoke(prompt_values("Pressure?", [Document("4 bar.")], None))
    >>> text, cited(text, 1)
    ('Pump to 4 bar [1].', [{'number': 1, 'rank': 1}])
"""

from __future__ import annotations

from typing import Any

from ragkit.documents import Document
from ragkit.errors import RequestError


def answer_chain(llm: Any) -> Any:
    """prompt | llm | text."""
    from ragkit.chains.rag import default_prompt
    from ragkit.parsers import StrOutputParser

    return default_prompt(citations=True) | llm | StrOutputParser()


def prompt_values(question: str, docs: list[Document], history: list[Any] | None) -> dict[str, Any]:
    context = "\n\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(docs, 1))
    values: dict[str, Any] = {"question": question, "context": context}
    if history:
        from ragkit.messages import convert_to_messages

        try:
            values["chat_history"] = convert_to_messages(history)
        except (ValueError, TypeError) as err:
            raise RequestError(
                f"chat_history: {err}", status_code=422, field="chat_history"
            ) from None
    return values


def cited(answer: str, n_sources: int) -> list[dict[str, Any]]:
    """The ``[n]`` marks of ``answer`` in order of first mention, with the rank they cite
    (``None`` for a number that matches no passage)."""
    from ragkit.chains.rag import parse_citations

    placeholders = [Document("")] * n_sources
    return [
        {"number": c["number"], "rank": c["number"] if c["document"] is not None else None}
        for c in parse_citations(answer, placeholders)
    ]
