"""``ragkit ask``: retrieve passages and, with ``GOOGLE_API_KEY`` (or ``GEMINI_API_KEY``) set, answer with Gemini citing sources.

Example:
    >>> # answer, docs = ask(index, "How do I true a wheel?", k=4)
"""

from __future__ import annotations

from typing import Any

from ragkit.documents import Document

DEFAULT_MODEL = "gemini-2.0-flash"
SYSTEM = (
    "Answer the question using only the numbered passages. Cite passages like [1]. "
    "If the passages do not contain the answer, say so."
)


def context_block(docs: list[Document]) -> str:
    return "\n\n".join(
        f"[{i}] ({d.metadata.get('source', '?')})\n{d.page_content}" for i, d in enumerate(docs, 1)
    )


def answer(
    question: str, docs: list[Document], model: Any = None, model_name: str = DEFAULT_MODEL
) -> str | None:
    """Gemini's answer over ``docs``, or ``None`` when no API key is set and no model is given.

    The key is found as every Google class finds it (``GOOGLE_API_KEY``, else
    ``GEMINI_API_KEY``; see :mod:`ragkit._google.keys`).
    """
    if model is None:
        from ragkit._google.keys import key_from_environment

        if key_from_environment() is None:  # a malformed key raises, without showing it
            return None
        from ragkit.models import ChatGoogleGenerativeAI

        model = ChatGoogleGenerativeAI(model=model_name)  # resolves the key by the same rule
    from ragkit.parsers import StrOutputParser
    from ragkit.prompts import ChatPromptTemplate

    prompt = ChatPromptTemplate.from_messages(
        [("system", SYSTEM), ("human", "Passages:\n{context}\n\nQuestion: {question}")]
    )
    chain = prompt | model | StrOutputParser()
    return str(chain.invoke({"context": context_block(docs), "question": question}))
