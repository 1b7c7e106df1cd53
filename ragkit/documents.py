"""Document: a piece of text with metadata, the unit that flows through a pipeline.

Example:
    >>> doc = Document("Paris is the capital of France.", metadata={"source": "facts.txt"})
    >>> doc.page_content[:5], doc.metadata["source"]
    ('Paris', 'facts.txt')
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Document(BaseModel):
    """Text plus metadata (``source``, ``page``, ``row``, ...) and an optional ``id``."""

    page_content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    type: Literal["Document"] = "Document"

    def __init__(self, page_content: str | None = None, /, **kwargs: Any) -> None:
        if page_content is not None:
            kwargs["page_content"] = page_content
        super().__init__(**kwargs)

    def __str__(self) -> str:
        if self.metadata:
            return f"page_content='{self.page_content}' metadata={self.metadata}"
        return f"page_content='{self.page_content}'"
