"""Example selectors over a vector store: the most similar examples, or a diverse (MMR) set.

Each example is stored as one text, its values joined in key order (only ``input_keys``
when given), with the example itself as the document's metadata. Any ragkit vector
store works (``FaissStore``, ``InMemoryVectorStore``, ``PGVectorStore``, ...).

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.stores import FaissStore
    >>> examples = [{"q": "fix a flat tyre", "a": "patch the tube"},
    ...             {"q": "squeaky chain", "a": "clean and lube it"}]
    >>> selector = SemanticSimilarityExampleSelector.from_examples(
    ...     examples, HashEmbeddings(64), FaissStore, k=1)
    >>> selector.select_examples({"q": "squeaky chain"})
    [{'q': 'squeaky chain', 'a': 'clean and lube it'}]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.example_selectors.base import BaseExampleSelector, check_examples, no_examples


def _joined(example: dict[str, Any], keys: list[str] | None) -> str:
    if keys:
        missing = [k for k in keys if k not in example]
        if missing:
            raise ConfigurationError(f"example {example!r:.80} lacks the input_keys {missing}")
        example = {k: example[k] for k in keys}
    return " ".join(str(example[k]) for k in sorted(example))


@dataclass(eq=False, repr=False)
class SemanticSimilarityExampleSelector(BaseExampleSelector):
    """The ``k`` examples most similar to the input (``similarity_search``).

    Fields as LangChain's: ``vectorstore``, ``k``, ``example_keys`` (which keys of a
    found example to return), ``input_keys`` (which input keys make the query),
    ``vectorstore_kwargs`` (passed to the search).
    """

    vectorstore: Any
    k: int = 4
    example_keys: list[str] | None = None
    input_keys: list[str] | None = None
    vectorstore_kwargs: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        k = self.k
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ConfigurationError(f"{type(self).__name__}: k must be an integer >= 1, got {k!r}")

    @classmethod
    def from_examples(
        cls,
        examples: list[dict[str, Any]],
        embeddings: Any,
        vectorstore_cls: Any,
        k: int = 4,
        input_keys: list[str] | None = None,
        *,
        example_keys: list[str] | None = None,
        vectorstore_kwargs: dict[str, Any] | None = None,
        **vectorstore_cls_kwargs: Any,
    ) -> Any:
        """Embed ``examples`` into a new ``vectorstore_cls`` store (``from_texts``)."""
        examples = check_examples(examples, cls.__name__)
        if not examples:
            raise no_examples(cls.__name__)
        texts = [_joined(e, input_keys) for e in examples]
        store = vectorstore_cls.from_texts(
            texts, embeddings, metadatas=[dict(e) for e in examples], **vectorstore_cls_kwargs
        )
        return cls(
            store,
            k=k,
            example_keys=example_keys,
            input_keys=input_keys,
            vectorstore_kwargs=vectorstore_kwargs,
        )

    def add_example(self, example: dict[str, str]) -> str:
        ids = self.vectorstore.add_texts(
            [_joined(example, self.input_keys)], metadatas=[dict(example)]
        )
        return str(ids[0])

    def _search(self, query: str) -> list[Any]:
        return list(
            self.vectorstore.similarity_search(query, k=self.k, **(self.vectorstore_kwargs or {}))
        )

    def select_examples(self, input_variables: dict[str, str]) -> list[dict[str, Any]]:
        documents = self._search(_joined(input_variables, self.input_keys))
        if not documents and not self._has_examples():
            raise no_examples(type(self).__name__)
        examples = [dict(d.metadata) for d in documents]
        if self.example_keys:
            examples = [{k: e[k] for k in self.example_keys if k in e} for e in examples]
        return examples

    def _has_examples(self) -> bool:
        try:
            return len(self.vectorstore) > 0
        except TypeError:
            return True


@dataclass(eq=False, repr=False)
class MaxMarginalRelevanceExampleSelector(SemanticSimilarityExampleSelector):
    """``k`` examples similar to the input yet unlike each other (MMR among ``fetch_k``)."""

    fetch_k: int = 20

    @classmethod
    def from_examples(
        cls,
        examples: list[dict[str, Any]],
        embeddings: Any,
        vectorstore_cls: Any,
        k: int = 4,
        input_keys: list[str] | None = None,
        fetch_k: int = 20,
        *,
        example_keys: list[str] | None = None,
        vectorstore_kwargs: dict[str, Any] | None = None,
        **vectorstore_cls_kwargs: Any,
    ) -> Any:
        selector = super().from_examples(
            examples,
            embeddings,
            vectorstore_cls,
            k,
            input_keys,
            example_keys=example_keys,
            vectorstore_kwargs=vectorstore_kwargs,
            **vectorstore_cls_kwargs,
        )
        selector.fetch_k = fetch_k
        return selector

    def _search(self, query: str) -> list[Any]:
        return list(
            self.vectorstore.max_marginal_relevance_search(
                query, k=self.k, fetch_k=self.fetch_k, **(self.vectorstore_kwargs or {})
            )
        )
