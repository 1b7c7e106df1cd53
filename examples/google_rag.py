"""RAG with Google's services, end to end: a local FaissStore retriever -> Gemini chat chain,
and a server-side corpus with Attributed Question Answering.

Runs offline against the local emulator of the Generative Language API that
ships with ragkit's tests (started here on 127.0.0.1); point it at Google by
passing ``--endpoint https://generativelanguage.googleapis.com`` with
GOOGLE_API_KEY set. Against the emulator the "model" echoes its prompt, which
shows exactly what the chain sent.

The FAISS index is embedded on this machine: ``--embeddings hash`` (default;
feature hashing, no model needed), ``local`` (the bundled MiniLM on
onnxruntime) or ``google`` (GoogleGenerativeAIEmbeddings through the API).

    python examples/google_rag.py
    python examples/google_rag.py --embeddings local
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout without installing

from ragkit.chains import create_rag_chain  # noqa: E402
from ragkit.embeddings import Embeddings, HashEmbeddings  # noqa: E402
from ragkit.models import ChatGoogleGenerativeAI  # noqa: E402
from ragkit.prompts import ChatPromptTemplate, PromptTemplate  # noqa: E402
from ragkit.retrievers import GoogleAQA  # noqa: E402
from ragkit.stores import FaissStore, GoogleVectorStore  # noqa: E402

HANDBOOK = [
    (
        "Refunds are paid within five working days of the returned item arriving.",
        {"section": "refunds", "year": 2024},
    ),
    (
        "Items can be returned for free within 30 days of delivery.",
        {"section": "returns", "year": 2024},
    ),
    ("Our support line is open on weekdays from 9am to 5pm.", {"section": "support", "year": 2023}),
    ("Gift cards cannot be refunded or exchanged for cash.", {"section": "refunds", "year": 2022}),
]
QUESTION = "How long do refunds take to be paid?"
EMBEDDINGS = ("hash", "local", "google")


def make_embeddings(kind: str, google: dict[str, Any]) -> Embeddings:
    """The embedding model of the FAISS index (``kind``: one of EMBEDDINGS)."""
    if kind == "hash":
        return HashEmbeddings(256)
    if kind == "local":
        from ragkit.embeddings import LocalEmbeddings

        return LocalEmbeddings()
    if kind == "google":
        from ragkit.embeddings import GoogleGenerativeAIEmbeddings

        return GoogleGenerativeAIEmbeddings(model="models/text-embedding-004", **google)
    raise ValueError(f"--embeddings must be one of {EMBEDDINGS}, got {kind!r}")


def main(endpoint: str, api_key: str, embeddings: str = "hash") -> dict[str, Any]:
    """Run both pipelines against ``endpoint``; returns what they produced."""
    google = {"google_api_key": api_key, "client_options": {"api_endpoint": endpoint}}

    # 1. Server-side corpus -> Attributed Question Answering (the service retrieves and answers).
    corpus = GoogleVectorStore.from_texts(
        [t for t, _ in HANDBOOK],
        metadatas=[m for _, m in HANDBOOK],
        corpus_id="ragkit-demo",
        document_id="handbook",
        **google,
    )
    hits = corpus.similarity_search("refund", k=2, filter={"section": "refunds"})
    aqa = corpus.as_aqa(answer_style="EXTRACTIVE").invoke(QUESTION)

    # 2. A local FaissStore retriever -> prompt -> Gemini -> answer with its sources.
    store = FaissStore.from_texts(
        [t for t, _ in HANDBOOK],
        make_embeddings(embeddings, google),
        metadatas=[m for _, m in HANDBOOK],
    )
    retriever = store.as_retriever(search_kwargs={"k": 2})
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "Answer only from the context. Say 'I don't know' if it is not there."),
            ("human", "Context:\n{context}\n\nQuestion: {question}"),
        ]
    )
    llm = ChatGoogleGenerativeAI(model="gemini-1.5-flash", temperature=0, **google)
    rag = create_rag_chain(
        retriever,
        llm,
        prompt=prompt,
        document_prompt=PromptTemplate.from_template("- {page_content}"),
        document_separator="\n",
    )
    result = rag.invoke({"question": QUESTION})
    streamed = "".join(chunk.get("answer", "") for chunk in rag.stream(QUESTION))

    # 3. The same retriever grounding AQA with inline passages.
    inline = GoogleAQA(retriever=retriever, **google).invoke(QUESTION)
    return {
        "hits": hits,
        "aqa": aqa,
        "answer": result["answer"],
        "sources": result["sources"],
        "streamed": streamed,
        "inline_aqa": inline,
    }


def _emulator() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "google"))
    from gemini_emulator import Emulator

    return Emulator(api_key="demo-key").start()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint", help="API endpoint (default: a local emulator started here)")
    parser.add_argument(
        "--embeddings",
        choices=EMBEDDINGS,
        default="hash",
        help="how the FAISS index embeds texts (default: hash, needs no model)",
    )
    args = parser.parse_args()
    emulator = None if args.endpoint else _emulator()
    try:
        endpoint = args.endpoint or emulator.url
        key = os.environ.get("GOOGLE_API_KEY", "") if args.endpoint else "demo-key"
        out = main(endpoint, key, args.embeddings)
    finally:
        if emulator is not None:
            emulator.stop()
    print("Corpus search (section=refunds):")
    for doc in out["hits"]:
        print(f"  {doc.page_content}  {doc.metadata}")
    print(f"\nAQA over the corpus: {out['aqa'].answer}")
    print(
        f"  answerable: {out['aqa'].answerability_probability:.2f}; from: {out['aqa'].attributed_passages}"
    )
    print(f"\nFaissStore ({args.embeddings} embeddings) sources:")
    for doc in out["sources"]:
        print(f"  {doc.page_content}")
    print(f"Retriever -> Gemini chain:\n{out['answer']}")
    print(f"\nAQA over the retriever's passages: {out['inline_aqa'].answer}")
