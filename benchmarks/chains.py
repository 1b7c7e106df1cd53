"""Chains, tools and chat history: ragkit vs LangChain, side by side in one process.

Run:  .venv/bin/python benchmarks/chains.py [--rounds 5] [--out benchmarks/results/chains.md]

Each case builds the same thing with both libraries over fake models (no
network) and reports the median wall time per call and the ratio
LangChain / ragkit (higher is better for ragkit):

- a RAG chain (retriever -> stuff documents -> prompt -> model -> parser)
  invoked and streamed: ``create_rag_chain`` vs ``create_retrieval_chain`` +
  ``create_stuff_documents_chain``;
- a tool called with arguments, and with a model's tool call (-> ToolMessage);
- a model wrapped with per-session in-memory chat history;
- appending one message to a JSON-file chat history that already holds 100
  (ragkit locks the file and writes it atomically with fsync; LangChain
  rewrites it in place without either, so this row prices that durability).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core_overhead import timed  # same timing rule for every side-by-side benchmark

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
warnings.filterwarnings("ignore", category=DeprecationWarning)

TEXTS = [
    "Green tea is steamed or pan-fired soon after picking.",
    "Black tea leaves are fully oxidised before drying.",
    "Oolong tea is partly oxidised, between green and black.",
    "Tea keeps best in an airtight, opaque container.",
]
ANSWER = "Green tea is heated soon after picking, which keeps it green and fresh tasting."


def ragkit_cases(tmp: Path) -> dict[str, tuple[Callable[[], Any], int]]:
    from ragkit import Document
    from ragkit.chains import (
        ChatMessageHistory,
        FileChatMessageHistory,
        RunnableWithMessageHistory,
        create_rag_chain,
    )
    from ragkit.messages import HumanMessage
    from ragkit.models import FakeChatModel
    from ragkit.retrievers import BaseRetriever
    from ragkit.tools import tool

    docs = [Document(t) for t in TEXTS]

    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
            return docs

    rag = create_rag_chain(Fixed(), FakeChatModel([ANSWER]))

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1", "type": "tool_call"}
    store: dict[str, ChatMessageHistory] = {}
    chat = RunnableWithMessageHistory(
        FakeChatModel(["hi"]), lambda session_id: store.setdefault(session_id, ChatMessageHistory())
    )
    session = {"configurable": {"session_id": "s"}}

    def reset_and_chat() -> None:
        store.clear()
        chat.invoke("hello", session)

    history = FileChatMessageHistory(tmp / "ragkit.json")
    history.add_messages([HumanMessage(f"message {i}") for i in range(100)])
    return {
        "RAG chain invoke (4 docs)": (
            lambda: rag.invoke({"question": "How is green tea made?"}),
            200,
        ),
        "RAG chain stream (4 docs, 14 tokens)": (
            lambda: list(rag.stream({"question": "How?"})),
            100,
        ),
        "tool invoke with arguments": (lambda: add.invoke({"a": 1, "b": 2}), 2000),
        "tool invoke with a tool call -> ToolMessage": (lambda: add.invoke(call), 2000),
        "model with in-memory session history": (reset_and_chat, 500),
        "file history: append 1 message to 100": (
            lambda: history.add_message(HumanMessage("one more")),
            50,
        ),
    }


def langchain_cases(tmp: Path) -> dict[str, tuple[Callable[[], Any], int]]:
    from langchain_classic.chains import create_retrieval_chain
    from langchain_classic.chains.combine_documents import create_stuff_documents_chain
    from langchain_community.chat_message_histories import FileChatMessageHistory
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.chat_history import InMemoryChatMessageHistory
    from langchain_core.documents import Document
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables.history import RunnableWithMessageHistory
    from langchain_core.tools import tool

    docs = [Document(page_content=t) for t in TEXTS]

    class Fixed(BaseRetriever):
        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[Document]:
            return docs

    class Cycling(GenericFakeChatModel):
        """GenericFakeChatModel (it streams word by word) replaying one reply forever."""

    def model(text: str) -> Any:
        return Cycling(messages=iter(lambda: AIMessage(content=text), None))

    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "Answer the question using only the context below.\n\nContext:\n{context}"),
            ("human", "{input}"),
        ]
    )
    rag = create_retrieval_chain(Fixed(), create_stuff_documents_chain(model(ANSWER), prompt))

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1", "type": "tool_call"}
    store: dict[str, InMemoryChatMessageHistory] = {}
    chat = RunnableWithMessageHistory(
        model("hi"), lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory())
    )
    session = {"configurable": {"session_id": "s"}}

    def reset_and_chat() -> None:
        store.clear()
        chat.invoke("hello", session)

    history = FileChatMessageHistory(str(tmp / "langchain.json"))
    history.add_messages([HumanMessage(content=f"message {i}") for i in range(100)])
    return {
        "RAG chain invoke (4 docs)": (lambda: rag.invoke({"input": "How is green tea made?"}), 200),
        "RAG chain stream (4 docs, 14 tokens)": (lambda: list(rag.stream({"input": "How?"})), 100),
        "tool invoke with arguments": (lambda: add.invoke({"a": 1, "b": 2}), 2000),
        "tool invoke with a tool call -> ToolMessage": (lambda: add.invoke(call), 2000),
        "model with in-memory session history": (reset_and_chat, 500),
        "file history: append 1 message to 100": (
            lambda: history.add_message(HumanMessage(content="one more")),
            50,
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=None, help="also write the Markdown table to this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        ours, theirs = ragkit_cases(tmp), langchain_cases(tmp)
        rows = []
        for name, (fn, repeat) in ours.items():
            t_rk = timed(fn, repeat, args.rounds)
            lc_fn, lc_repeat = theirs[name]
            t_lc = timed(lc_fn, lc_repeat, args.rounds)
            rows.append(f"| {name} | {t_rk * 1e6:,.1f} | {t_lc * 1e6:,.1f} | {t_lc / t_rk:.1f}× |")
    import langchain_classic
    import langchain_core

    table = "\n".join(
        [
            "| case | ragkit µs/call | LangChain µs/call | ratio (LangChain / ragkit) |",
            "|---|---:|---:|---:|",
            *rows,
        ]
    )
    header = (
        f"Chains, tools and chat history per call, fake models, median of {args.rounds} rounds; "
        f"langchain-core {langchain_core.__version__}, langchain-classic {langchain_classic.__version__}.\n\n"
    )
    print(header + table)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(
                header + table + "\n\nCommand: `.venv/bin/python benchmarks/chains.py "
                f"--rounds {args.rounds}`\n"
            )


if __name__ == "__main__":
    main()
