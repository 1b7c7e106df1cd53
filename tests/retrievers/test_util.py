"""Helpers shared by the retrievers."""

from __future__ import annotations

from ragkit.documents import Document
from ragkit.retrievers._util import with_score


def test_with_score_equals_model_copy_and_leaves_the_original_alone():
    for doc in (Document("text", metadata={"a": [1]}, id="x"), Document("bare")):
        scored = with_score(doc, 0.5)
        assert scored == doc.model_copy(update={"metadata": {**doc.metadata, "score": 0.5}})
        assert scored.model_fields_set >= {"metadata", "page_content"}
        assert "score" not in doc.metadata and scored is not doc
        assert scored.model_dump()["metadata"]["score"] == 0.5
        assert with_score(doc, 1, key="rank").metadata["rank"] == 1.0
