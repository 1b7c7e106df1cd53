"""GoogleAQA / GoogleVectorStore.as_aqa: generateAnswer with inline passages and the semantic retriever."""

from __future__ import annotations

import pytest

from ragkit.core.lambdas import RunnableLambda
from ragkit.documents import Document
from ragkit.errors import GoogleAPIError
from ragkit.retrievers.base import BaseRetriever
from ragkit.retrievers.google_aqa import AqaOutput, GoogleAQA
from ragkit.stores import GoogleVectorStore

PASSAGES = [
    "The Golden Gate Bridge opened in 1937. It is painted international orange.",
    "Cats sleep up to sixteen hours a day.",
    "The bridge spans the Golden Gate strait.",
]


class ListRetriever(BaseRetriever):
    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.queries: list[str] = []

    def _get_relevant_documents(self, query: str, **kwargs) -> list[Document]:
        self.queries.append(query)
        return [Document(t) for t in self.texts]


def test_inline_passages_from_any_retriever(google_kwargs, emulator):
    retriever = ListRetriever(PASSAGES)
    aqa = GoogleAQA(
        retriever=retriever,
        temperature=0.2,
        safety_settings={"HARM_CATEGORY_HARASSMENT": "BLOCK_ONLY_HIGH"},
        **google_kwargs,
    )
    out = aqa.invoke("When did the Golden Gate Bridge open?")
    assert isinstance(out, AqaOutput)
    assert out.answer == "Based on the sources, The Golden Gate Bridge opened in 1937."
    assert out.attributed_passages == [PASSAGES[0], PASSAGES[2]]
    assert 0.5 < out.answerability_probability <= 1.0
    assert retriever.queries == ["When did the Golden Gate Bridge open?"]
    [request] = emulator.requests("generateAnswer")
    assert request.path == "/v1beta/models/aqa:generateAnswer"
    body = request.body
    assert body["answerStyle"] == 1 and body["temperature"] == pytest.approx(0.2)
    assert body["safetySettings"] == [{"category": 7, "threshold": 3}]
    assert body["inlinePassages"]["passages"][1] == {
        "id": "1",
        "content": {"parts": [{"text": PASSAGES[1]}]},
    }
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "When did the Golden Gate Bridge open?"}]}
    ]


@pytest.mark.parametrize(
    "style, number, answer",
    [
        ("extractive", 2, "The Golden Gate Bridge opened in 1937."),
        ("VERBOSE", 3, PASSAGES[0]),
    ],
)
def test_answer_styles(google_kwargs, emulator, style, number, answer):
    out = GoogleAQA(retriever=ListRetriever(PASSAGES), answer_style=style, **google_kwargs).invoke(
        "When did the Golden Gate Bridge open?"
    )
    assert out.answer == answer and emulator.requests()[0].body["answerStyle"] == number


def test_semantic_retriever_source(google_kwargs, emulator):
    store = GoogleVectorStore.from_texts(
        PASSAGES,
        metadatas=[{"kind": "bridge"}, {"kind": "cat"}, {"kind": "bridge"}],
        corpus_id="kb",
        document_id="main",
        **google_kwargs,
    )
    corpus = GoogleVectorStore("kb", **google_kwargs)
    out = corpus.as_aqa(answer_style="EXTRACTIVE").invoke("How long do cats sleep?")
    assert out.answer == "Cats sleep up to sixteen hours a day."
    assert out.attributed_passages[0] == PASSAGES[1]
    body = emulator.requests("generateAnswer")[0].body
    assert body["semanticRetriever"] == {
        "source": "corpora/kb",
        "query": {"parts": [{"text": "How long do cats sleep?"}]},
        "maxChunksCount": 5,
    }
    assert "inlinePassages" not in body
    doc_aqa = store.as_aqa(
        k=2, filter={"kind": "bridge"}, minimum_relevance_score=0.1, temperature=0.0
    )
    out = doc_aqa.invoke("Which strait does the bridge span?")
    assert out.attributed_passages and all("ridge" in p for p in out.attributed_passages)
    semantic = emulator.requests("generateAnswer")[1].body["semanticRetriever"]
    assert semantic["source"] == "corpora/kb/documents/main" and semantic["maxChunksCount"] == 2
    assert semantic["metadataFilters"] == [
        {
            "key": "chunk.custom_metadata.kind",
            "conditions": [{"stringValue": "bridge", "operation": 3}],
        }
    ]
    assert semantic["minimumRelevanceScore"] == pytest.approx(0.1)


def test_unanswerable_and_empty_retrieval(google_kwargs, emulator):
    out = GoogleAQA(retriever=ListRetriever(PASSAGES), **google_kwargs).invoke("xylophone quantum")
    assert (
        out.answer == "" and out.answerability_probability == 0.0 and out.attributed_passages == []
    )
    nothing = GoogleAQA(retriever=ListRetriever([]), **google_kwargs).invoke("anything")
    assert nothing == AqaOutput(answer="", attributed_passages=[], answerability_probability=0.0)
    assert len(emulator.requests("generateAnswer")) == 1  # no passages: no call


def test_blocked_question_raises(google_kwargs):
    with pytest.raises(GoogleAPIError, match="blocked the question: block_reason=SAFETY"):
        GoogleAQA(retriever=ListRetriever(PASSAGES), **google_kwargs).invoke("BLOCK_ME")


def test_argument_checks(google_kwargs):
    with pytest.raises(ValueError, match="exactly one source"):
        GoogleAQA(**google_kwargs)
    with pytest.raises(ValueError, match="answer_style 'poetic'"):
        GoogleAQA(retriever=ListRetriever([]), answer_style="poetic", **google_kwargs)
    with pytest.raises(TypeError, match="takes a question string"):
        GoogleAQA(retriever=ListRetriever(PASSAGES), **google_kwargs).invoke({"question": "x"})


def test_in_a_chain_with_batch_and_retries(google_kwargs, emulator):
    emulator.fail("generateAnswer", status=429, retry_delay="0.001s")
    chain = GoogleAQA(retriever=ListRetriever(PASSAGES), **google_kwargs) | RunnableLambda(
        lambda o: o.answer
    )
    answers = chain.batch(["When did the Golden Gate Bridge open?", "How long do cats sleep?"])
    assert answers[1] == "Based on the sources, Cats sleep up to sixteen hours a day."
    assert sorted(r.status for r in emulator.requests("generateAnswer")) == [200, 200, 429]
