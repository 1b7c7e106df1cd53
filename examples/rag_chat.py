"""A RAG chat over the tea notes bundled in examples/data/.

Offline (the default without GOOGLE_API_KEY) it answers with a scripted
FakeChatModel, so the whole pipeline runs with no network: retrieval, the
history-aware rewriting of follow-up questions, streamed answers with
numbered citations, and the chat history saved to a JSON file. With
GOOGLE_API_KEY set and ``ragkit.models.ChatGoogleGenerativeAI`` available it
talks to Gemini instead.

Run:
    python examples/rag_chat.py                      # scripted demo conversation
    python examples/rag_chat.py --offline            # force the offline model
    python examples/rag_chat.py -q "How do I brew green tea?" -q "And black tea?"
    python examples/rag_chat.py --interactive        # type questions, empty line to stop
    python examples/rag_chat.py --history chat.json  # keep the conversation between runs
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout without installing

from ragkit import Document  # noqa: E402
from ragkit.chains import FileChatMessageHistory, RunnableWithMessageHistory, create_rag_chain  # noqa: E402
from ragkit.models import FakeChatModel  # noqa: E402
from ragkit.retrievers import BaseRetriever  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"

DEMO_QUESTIONS = [
    "How is green tea made?",
    "What temperature should I brew it at?",
    "How long does it keep?",
]

# The offline model's replies, in call order: an answer, then (for each
# follow-up) a standalone rewrite of the question followed by its answer.
SCRIPT = [
    "Green tea leaves are heated soon after picking to stop oxidation: pan-fired in China, "
    "steamed in Japan [1].",
    "What water temperature should green tea be brewed at?",
    "Use water between 70 and 80 °C for one to three minutes; boiling water makes it bitter [1].",
    "How long does green tea keep after opening?",
    "Green tea loses its fresh taste fastest; use it within a few months of opening [1].",
]


class KeywordRetriever(BaseRetriever):
    """Chunks ranked by how many distinct query words they share (a stand-in for BM25)."""

    def __init__(self, docs: list[Document], k: int = 3) -> None:
        self.docs = docs
        self.k = k
        self._words = [set(re.findall(r"\w+", d.page_content.lower())) for d in docs]

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        words = set(re.findall(r"\w+", query.lower())) - {
            "the",
            "a",
            "is",
            "it",
            "how",
            "what",
            "and",
            "of",
        }
        scores = [(len(words & ws), i) for i, ws in enumerate(self._words)]
        ranked = sorted((s for s in scores if s[0] > 0), key=lambda t: (-t[0], t[1]))
        return [self.docs[i] for _, i in ranked[: kwargs.get("k", self.k)]]


def load_documents(folder: Path) -> list[Document]:
    """One document per paragraph of every .md file in ``folder``."""
    docs = []
    for path in sorted(folder.glob("*.md")):
        for n, para in enumerate(p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")):
            if para and not para.startswith("#"):
                docs.append(
                    Document(
                        " ".join(para.split()),
                        metadata={"source": path.name, "paragraph": n},
                        id=f"{path.stem}-{n}",
                    )
                )
    if not docs:
        raise SystemExit(f"No .md documents found in {folder}")
    return docs


def make_retriever(docs: list[Document]) -> BaseRetriever:
    try:  # the BM25 retriever, where this ragkit has it
        from ragkit.retrievers import BM25Retriever  # type: ignore[attr-defined]

        return BM25Retriever.from_documents(docs, k=3)  # type: ignore[no-any-return]
    except ImportError:
        return KeywordRetriever(docs)


def make_model(offline: bool) -> tuple[Any, str]:
    if not offline and os.environ.get("GOOGLE_API_KEY"):
        try:
            from ragkit.models import ChatGoogleGenerativeAI  # type: ignore[attr-defined]

            return ChatGoogleGenerativeAI(), "ChatGoogleGenerativeAI (online)"
        except ImportError as e:
            print(
                f"(ChatGoogleGenerativeAI is not available: {e}; using the offline model)",
                file=sys.stderr,
            )
    return FakeChatModel(SCRIPT), "FakeChatModel (offline, scripted replies)"


def ask(chat: Any, question: str, session: str) -> None:
    print(f"\nQ: {question}")
    out: dict[str, Any] = {}
    for chunk in chat.stream({"question": question}, {"configurable": {"session_id": session}}):
        if "sources" in chunk:
            out["sources"] = chunk["sources"]
            for i, doc in enumerate(chunk["sources"], start=1):
                print(f"  [{i}] {doc.metadata['source']}: {doc.page_content[:70]}...")
            print("A: ", end="", flush=True)
        if "answer" in chunk:
            print(chunk["answer"], end="", flush=True)
        if "citations" in chunk:
            out["citations"] = chunk["citations"]
    print()
    for cite in out.get("citations", []):
        doc = cite["document"]
        where = (
            f"{doc.metadata['source']} (paragraph {doc.metadata['paragraph']})"
            if doc
            else "no such source!"
        )
        print(f"  cited [{cite['number']}] -> {where}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-q", "--question", action="append", help="a question to ask (repeatable)")
    parser.add_argument(
        "--interactive", action="store_true", help="read questions from the terminal"
    )
    parser.add_argument(
        "--offline", action="store_true", help="use the offline FakeChatModel even with a key"
    )
    parser.add_argument(
        "--history", type=Path, help="JSON file keeping the conversation between runs"
    )
    parser.add_argument("--docs", type=Path, default=DATA, help="folder of .md files to chat about")
    args = parser.parse_args(argv)

    docs = load_documents(args.docs)
    model, label = make_model(args.offline)
    print(f"Model: {label}; {len(docs)} passages from {args.docs}")
    rag = create_rag_chain(make_retriever(docs), model, history_aware=True, citations=True)
    history_file = args.history or Path(tempfile.mkdtemp(prefix="rag_chat_")) / "history.json"
    chat = RunnableWithMessageHistory(
        rag,
        lambda session_id: FileChatMessageHistory(history_file),
        input_messages_key="question",
        history_messages_key="chat_history",
        output_messages_key="answer",
    )
    if args.interactive:
        while True:
            try:
                question = input("\nYour question (empty to stop): ").strip()
            except EOFError:
                break
            if not question:
                break
            ask(chat, question, "cli")
    else:
        for question in args.question or DEMO_QUESTIONS:
            ask(chat, question, "cli")
    print(
        f"\nConversation saved in {history_file} ({len(FileChatMessageHistory(history_file).messages)} messages)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
