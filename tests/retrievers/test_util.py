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


def test_with_score_keeps_a_subclass_and_its_extra_fields():
    class Tagged(Document):
        tag: str = "none"

    doc = Tagged("text", metadata={"a": 1}, tag="kept")
    scored = with_score(doc, 2.0)
    assert type(scored) is Tagged and scored.tag == "kept"
    assert scored.metadata == {"a": 1, "score": 2.0} and doc.metadata == {"a": 1}


def test_trusted_documents_behave_like_validated_ones():
    fast = Document._trusted("body", {"k": "v"}, "id-1")
    slow = Document("body", metadata={"k": "v"}, id="id-1")
    assert fast == slow and fast.model_dump() == slow.model_dump()
    assert fast.model_copy(update={"id": "id-2"}).id == "id-2" and fast.id == "id-1"
    assert Document.model_validate_json(fast.model_dump_json()) == slow
