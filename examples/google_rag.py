"""RAG with Google's services, end to end: a server-side corpus with Attributed Question Answering,
and a retriever -> Gemini chat chain.

Runs offline against the local emulator of the Generative Language API that
ships with ragkit's tests (started here on 127.0.0.1); point it at Google by
passing ``--endpoint https://generativelanguage.googleapis.com`` with
GOOGLE_API_KEY set. Against the emulator the "model" echoes its prompt, which
shows exactly what the chain sent.

    python examples/google_rag.py
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.core import RunnablePassthrough
from ragkit.documents import Document
from ragkit.embeddings import GoogleGenerativeAIEmbeddings
from ragkit.models import ChatGoogleGenerativeAI
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate
from ragkit.retrievers import BaseRetriever
from ragkit.retrievers.google_aqa import GoogleAQA
from ragkit.stores import GoogleVectorStore

HANDBOOK = [
    ("Refunds are paid within five working days of the returned item arriving.", {"section": "refunds", "year": 2024}),
    ("Items can be returned for free within 30 days of delivery.", {"section": "returns", "year": 2024}),
    ("Our support line is open on weekdays from 9am to 5pm.", {"section": "support", "year": 2023}),
    ("Gift cards cannot be refunded or exchanged for cash.", {"section": "refunds", "year": 2022}),
]
QUESTION = "How long do refunds take to be paid?"


class EmbeddingRetriever(BaseRetriever):
    """The k nearest texts by Google embeddings (a FaissStore retriever plugs in the same way)."""

    def __init__(self, documents: list[Document], embeddings: GoogleGenerativeAIEmbeddings, k: int = 2) -> None:
        self.documents = documents
        self.embeddings = embeddings
        self.k = k
        self.matrix = embeddings.embed_documents_array([d.page_content for d in documents])

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        scores = self.matrix @ self.embeddings.embed_query_array(query)
        best = np.argsort(-scores)[: kwargs.get("k", self.k)]
        return [self.documents[i] for i in best]


def format_docs(docs: list[Document]) -> str:
    return "\n".join(f"- {d.page_content}" for d in docs)


def main(endpoint: str, api_key: str) -> dict[str, Any]:
    """Run both pipelines against ``endpoint``; returns what they produced."""
    google = {"google_api_key": api_key, "client_options": {"api_endpoint": endpoint}}

    # 1. Server-side corpus -> Attributed Question Answering (the service retrieves and answers).
    store = GoogleVectorStore.from_texts([t for t, _ in HANDBOOK], metadatas=[m for _, m in HANDBOOK],
                                         corpus_id="ragkit-demo", document_id="handbook", **google)
    hits = store.similarity_search("refund", k=2, filter={"section": "refunds"})
    aqa = store.as_aqa(answer_style="EXTRACTIVE").invoke(QUESTION)

    # 2. Any retriever -> prompt -> Gemini -> text.
    embeddings = GoogleGenerativeAIEmbeddings(model="models/text-embedding-004", **google)
    retriever = EmbeddingRetriever([Document(t, metadata=m) for t, m in HANDBOOK], embeddings)
    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer only from the context. Say 'I don't know' if it is not there."),
        ("human", "Context:\n{context}\n\nQuestion: {question}"),
    ])
    llm = ChatGoogleGenerativeAI(model="gemini-1.5-flash", temperature=0, **google)
    chain = {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | llm | StrOutputParser()
    answer = chain.invoke(QUESTION)
    streamed = "".join(chain.stream(QUESTION))

    # 3. The same retriever grounding AQA with inline passages.
    inline = GoogleAQA(retriever=retriever, **google).invoke(QUESTION)
    return {"hits": hits, "aqa": aqa, "answer": answer, "streamed": streamed, "inline_aqa": inline}


def _emulator() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "google"))
    from gemini_emulator import Emulator

    return Emulator(api_key="demo-key").start()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint", help="API endpoint (default: a local emulator started here)")
    args = parser.parse_args()
    emulator = None if args.endpoint else _emulator()
    try:
        endpoint = args.endpoint or emulator.url
        key = os.environ.get("GOOGLE_API_KEY", "") if args.endpoint else "demo-key"
        out = main(endpoint, key)
    finally:
        if emulator is not None:
            emulator.stop()
    print("Corpus search (section=refunds):")
    for doc in out["hits"]:
        print(f"  {doc.page_content}  {doc.metadata}")
    print(f"\nAQA over the corpus: {out['aqa'].answer}")
    print(f"  answerable: {out['aqa'].answerability_probability:.2f}; from: {out['aqa'].attributed_passages}")
    print(f"\nRetriever -> Gemini chain:\n{out['answer']}")
    print(f"\nAQA over the retriever's passages: {out['inline_aqa'].answer}")
