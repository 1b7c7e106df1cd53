"""Small retrievers and handlers shared by the retriever tests."""

from __future__ import annotations

import threading
from typing import Any

from ragkit.core.callbacks import BaseCallbackHandler, Run
from ragkit.documents import Document
from ragkit.retrievers import BaseRetriever


class ListRetriever(BaseRetriever):
    """Returns a fixed ranked list (cut to ``k`` if given) and records every call."""

    def __init__(self, docs: list[Document], barrier: threading.Barrier | None = None,
                 error: Exception | None = None) -> None:
        self.docs = docs
        self.barrier = barrier
        self.error = error
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.threads: list[str] = []
        self.tags = None
        self.metadata = None
        self.name = None

    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        self.calls.append((query, kwargs))
        self.threads.append(threading.current_thread().name)
        if self.barrier is not None:
            self.barrier.wait()  # only passes if the other member runs at the same time
        if self.error is not None:
            raise self.error
        k = kwargs.get("k")
        return list(self.docs if k is None else self.docs[:k])


class RunRecorder(BaseCallbackHandler):
    """Records (name, run_type, parent_run_id, id) of every started run."""

    def __init__(self) -> None:
        self.runs: list[Run] = []
        self.lock = threading.Lock()

    def on_run_start(self, run: Run) -> None:
        with self.lock:
            self.runs.append(run)


def docs(*ids: str) -> list[Document]:
    return [Document(f"text of {i}", id=i) for i in ids]
