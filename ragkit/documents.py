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

    @classmethod
    def _trusted(cls, page_content: str, metadata: dict[str, Any], id: str | None) -> Document:
        """A Document built without validation, for stores and retrievers that already hold checked values.

        About twice as fast as ``Document(...)`` (retrievers make one per result); the caller
        guarantees ``page_content`` is a str, ``metadata`` a dict it hands over (not shared with
        anyone who mutates it) and ``id`` a str or None.
        """
        doc = object.__new__(cls)
        _set_dict(
            doc, {"page_content": page_content, "metadata": metadata, "id": id, "type": "Document"}
        )
        _set_fields_set(doc, {"page_content", "metadata", "id"})
        _set_extra(doc, None)
        _set_private(doc, None)
        return doc


# pydantic keeps a model's state in these slots of BaseModel; their descriptors set them directly
# (what BaseModel.model_construct does too, minus its per-field bookkeeping).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
