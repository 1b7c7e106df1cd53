"""The offline demo behind ``make demo``.

For now it runs a prompt → FakeChatModel → parser chain (the indexing issue
replaces it with: index the bundled dataset, query it, re-index).
"""

from __future__ import annotations

from ragkit.models import FakeChatModel
from ragkit.parsers import StrOutputParser
from ragkit.prompts import ChatPromptTemplate


def main() -> int:
    print("ragkit demo: prompt -> FakeChatModel -> StrOutputParser (indexing lands with a later issue)")
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You answer in one sentence."), ("human", "What does {tool} do?")]
    )
    model = FakeChatModel(responses=["It turns your documents into answers, offline."])
    chain = prompt | model | StrOutputParser()
    print("question: What does ragkit do?")
    print("streamed answer: ", end="", flush=True)
    for token in chain.stream({"tool": "ragkit"}):
        print(token, end="", flush=True)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
