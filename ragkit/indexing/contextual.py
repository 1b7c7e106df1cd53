"""Contextual retrieval: at index time a model writes a short context for each chunk from its
whole document; the context is embedded and BM25-indexed with the chunk, and kept in
``metadata["context"]``, not in the passage a search returns.

A chunk is stored as ``context + "\\n\\n" + chunk`` (so both the vector and BM25 see the
context) with the context in its metadata; :func:`without_context` gives the passage back
without it, and the query service applies it to every result. Contexts are cached per
(document, chunk, model, prompt) in a :class:`ragkit.caches.BaseCache` (a SQLite file for
``ragkit index --contextualize``): re-indexing an unchanged chunk of an unchanged document
with the same model and prompt calls no model. A model error fails the file (listed in the
report), never a chunk silently indexed without its context.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> ctx = Contextualizer(FakeChatModel(["About tyres."]))
    >>> doc = ctx.apply("Tyres. Pump them to 6 bar.", Document("Pump them to 6 bar."))
    >>> doc.page_content, doc.metadata["context"], without_context(doc).page_content
    ('About tyres.\\n\\nPump them to 6 bar.', 'About tyres.', 'Pump them to 6 bar.')
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from typing import Any

from ragkit.documents import Document
from ragkit.models.outputs import Generation

PROMPT = (
    "Here is a whole document:\n<document>\n{document}\n</document>\n\n"
    "And here is one chunk of it:\n<chunk>\n{chunk}\n</chunk>\n\n"
    "In one or two sentences, say where this chunk sits in the document and what it is about, "
    "naming the document's subject, so that a search for the chunk finds it. "
    "Reply with those sentences only."
)
KEY = "context"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Contextualizer:
    """Writes (and caches) the context of a chunk; ``calls`` counts the model calls made."""

    def __init__(
        self,
        model: Any,
        *,
        cache: Any = None,
        prompt: str = PROMPT,
        max_document_chars: int = 40_000,
    ) -> None:
        self.model = model
        self.cache = cache
        self.prompt = prompt
        self.max_document_chars = max_document_chars
        self.calls = 0
        self._lock = threading.Lock()
        from ragkit.models.cache_keys import cache_key

        key = cache_key(model, "", None, {})
        self._model_key = key[1] if key else type(model).__name__

    def context(self, document: str, chunk: str) -> str:
        """The context of ``chunk`` within ``document`` (from the cache when it holds it)."""
        document = document[: self.max_document_chars]
        key = json.dumps(
            {"document": _sha(document), "chunk": _sha(chunk), "prompt": _sha(self.prompt)}
        )
        if self.cache is not None:
            hit = self.cache.lookup(key, self._model_key)
            if hit:
                return str(hit[0].text)
        with self._lock:
            self.calls += 1
        reply = self.model.invoke(self.prompt.format(document=document, chunk=chunk))
        text = " ".join(str(getattr(reply, "content", reply)).split())
        if self.cache is not None:
            self.cache.update(key, self._model_key, [Generation(text=text)])
        return text

    def apply(self, document: str, chunk: Document) -> Document:
        """``chunk`` with its context before the text and in ``metadata["context"]``."""
        context = self.context(document, chunk.page_content)
        if not context:
            return chunk
        return Document(
            f"{context}\n\n{chunk.page_content}",
            metadata={**chunk.metadata, KEY: context},
            id=chunk.id,
        )


SplitFn = Callable[[list[Document]], list[Document]]


def contextualized(
    split_for: Callable[[str], SplitFn], ctx: Contextualizer
) -> Callable[[str], SplitFn]:
    """``split_for`` whose chunks carry their context (the document: the file's text)."""

    def for_source(source: str) -> SplitFn:
        split = split_for(source)

        def run(docs: list[Document]) -> list[Document]:
            whole = "\n\n".join(d.page_content for d in docs)
            return [ctx.apply(whole, c) for c in split(docs)]

        return run

    return for_source


def without_context(doc: Document) -> Document:
    """``doc`` as the passage a search returns: the context taken off its text (kept in metadata)."""
    context = doc.metadata.get(KEY)
    prefix = f"{context}\n\n"
    if not isinstance(context, str) or not doc.page_content.startswith(prefix):
        return doc
    return Document(doc.page_content[len(prefix) :], metadata=doc.metadata, id=doc.id)


__all__ = ["PROMPT", "Contextualizer", "contextualized", "without_context"]
