"""`ragkit ask`'s answer step: passages are numbered with their sources and reach the model."""

from __future__ import annotations

from ragkit._cli.ask import answer, context_block
from ragkit.documents import Document
from ragkit.models import FakeChatModel


def test_answer_sends_numbered_passages_and_returns_the_text():
    docs = [
        Document("Top up sealant every three months.", metadata={"source": "manual.pdf"}),
        Document("Check tyre pressure weekly.", metadata={"source": "notes.txt"}),
    ]
    model = FakeChatModel(responses=["Every three months [1]."])
    assert answer("How often is sealant topped up?", docs, model=model) == "Every three months [1]."
    sent = " ".join(str(m.content) for m in model.calls[0])
    assert (
        "[1] (manual.pdf)" in sent and "[2] (notes.txt)" in sent and "How often is sealant" in sent
    )


def test_no_key_means_no_answer(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    assert answer("q", [Document("x")]) is None
    assert context_block([]) == ""
