"""Small parts the technique modules share: reading a yes/no grade, fusing result lists.

Example:
    >>> parse_grade("Yes - the document mentions chain wear.")
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragkit.documents import Document
from ragkit.errors import OutputParserException
from ragkit.retrievers.fusion import reciprocal_rank_fusion


def text_of(reply: Any) -> str:
    """A model's reply (string, message or chunk) as text."""
    return reply if isinstance(reply, str) else str(getattr(reply, "text", reply))


def parse_grade(reply: Any) -> bool:
    """``True`` for a reply starting with (or only saying) yes, ``False`` for no.

    >>> parse_grade("no"), parse_grade('{"binary_score": "yes"}')
    (False, True)
    """
    text = text_of(reply)
    words = re.findall(r"\b(yes|no)\b", text, flags=re.I)
    if not words:
        raise OutputParserException(
            f"A grade must say 'yes' or 'no'; the model answered {text!r:.200}", llm_output=text
        )
    return words[0].lower() == "yes"


def fuse(lists: Sequence[Sequence[Document]], k: int | None = None) -> list[Document]:
    """Reciprocal-rank fusion of several rankings (equal weights), cut at ``k``."""
    if len(lists) == 1:
        fused = list(lists[0])
    else:
        fused = reciprocal_rank_fusion(lists, k=60, weights=[1.0] * len(lists))
    return fused[:k] if k is not None else fused


def format_docs(documents: Sequence[Document]) -> str:
    """Documents as numbered context blocks for a prompt."""
    return "\n\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(documents, 1))
