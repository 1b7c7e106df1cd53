"""ParentDocumentRetriever: search small chunks for precision, return their larger parents for context.

``add_documents`` splits each document (optionally first into parents with
``parent_splitter``) into children with ``child_splitter``, indexes the children
in the vector store with ``metadata[id_key]`` naming their parent, and stores
the parents in the docstore. A search returns parents in the rank of their best
child.

Example:
    >>> # retriever = ParentDocumentRetriever(vectorstore=store, docstore=InMemoryStore(),
    >>> #     child_splitter=RecursiveCharacterTextSplitter(chunk_size=400))
    >>> # retriever.add_documents(docs)
    >>> # retriever.invoke("what does the warranty cover?")
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.retrievers._util import require_methods
from ragkit.retrievers.multi_vector import MultiVectorRetriever, _keyed

if TYPE_CHECKING:
    from ragkit.stores.base import VectorStore


class ParentDocumentRetriever(MultiVectorRetriever):
    """Index children, return parents (LangChain's ``ParentDocumentRetriever``).

    Args:
        vectorstore: Where the child chunks are embedded.
        docstore: Key-value store for the parents (``mget``/``mset``).
        child_splitter: Splits a parent into children (anything with ``split_documents``).
        parent_splitter: Optionally splits the input documents into parents first.
        id_key: Child metadata key holding the parent's key.
        child_metadata_fields: If given, children keep only these metadata fields (plus ``id_key``).
        search_kwargs: As for :class:`MultiVectorRetriever`.
        search_type: As for :class:`MultiVectorRetriever`.
        byte_store: Instead of ``docstore``: a byte store the parents are kept in as JSON.
    """

    def __init__(
        self,
        vectorstore: VectorStore,
        docstore: Any = None,
        child_splitter: Any = None,
        parent_splitter: Any = None,
        id_key: str = "doc_id",
        child_metadata_fields: Sequence[str] | None = None,
        search_type: str = "similarity",
        search_kwargs: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        byte_store: Any = None,
    ) -> None:
        super().__init__(
            vectorstore,
            docstore,
            id_key=id_key,
            search_type=search_type,
            search_kwargs=search_kwargs,
            tags=tags,
            metadata=metadata,
            byte_store=byte_store,
        )
        if child_splitter is None:
            raise ConfigurationError("ParentDocumentRetriever needs a child_splitter")
        require_methods(
            child_splitter, "ParentDocumentRetriever: child_splitter", "split_documents"
        )
        if parent_splitter is not None:
            require_methods(
                parent_splitter, "ParentDocumentRetriever: parent_splitter", "split_documents"
            )
        self.child_splitter = child_splitter
        self.parent_splitter = parent_splitter
        self.child_metadata_fields = (
            list(child_metadata_fields) if child_metadata_fields is not None else None
        )

    def _split(
        self, documents: Sequence[Document], ids: Sequence[str] | None, add_to_docstore: bool
    ) -> tuple[list[str], list[Document], list[Document]]:
        documents = list(documents)
        if self.parent_splitter is not None:
            if ids is not None:
                raise ConfigurationError(
                    "ParentDocumentRetriever.add_documents: ids cannot be given with a parent_splitter "
                    "(the parents are made by splitting; their keys are generated)"
                )
            documents = list(self.parent_splitter.split_documents(documents))
            keys = [uuid.uuid4().hex for _ in documents]
        elif ids is None:
            if not add_to_docstore:
                raise ConfigurationError(
                    "ParentDocumentRetriever.add_documents: with add_to_docstore=False pass the ids the "
                    "parents already have in the docstore"
                )
            keys = [d.id or uuid.uuid4().hex for d in documents]
        else:
            keys = list(ids)
            if len(keys) != len(documents):
                raise ConfigurationError(
                    f"ParentDocumentRetriever.add_documents got {len(documents)} documents but {len(keys)} ids"
                )
        if len(set(keys)) != len(keys):
            raise ConfigurationError(
                "ParentDocumentRetriever.add_documents: parent ids must be unique"
            )
        children: list[Document] = []
        for key, parent in zip(keys, documents):
            for child in self.child_splitter.split_documents([parent]):
                meta = dict(child.metadata)
                if self.child_metadata_fields is not None:
                    meta = {f: meta[f] for f in self.child_metadata_fields if f in meta}
                meta[self.id_key] = key
                children.append(child.model_copy(update={"metadata": meta, "id": None}))
        return keys, documents, children

    def add_documents(
        self,
        documents: Sequence[Document],
        ids: Sequence[str] | None = None,
        add_to_docstore: bool = True,
        **kwargs: Any,
    ) -> list[str]:
        """Split, index the children, store the parents. Returns the parents' keys.

        Keys: ``ids``, else each document's ``id``, else new UUIDs (always new with a parent_splitter).
        ``kwargs`` go to the vector store's ``add_documents``.
        """
        keys, parents, children = self._split(documents, ids, add_to_docstore)
        if children:
            self.vectorstore.add_documents(children, **kwargs)
        if add_to_docstore:
            self.docstore.mset([(k, _keyed(p, k)) for k, p in zip(keys, parents)])
        return keys

    async def aadd_documents(
        self,
        documents: Sequence[Document],
        ids: Sequence[str] | None = None,
        add_to_docstore: bool = True,
        **kwargs: Any,
    ) -> list[str]:
        from ragkit.core.base import run_in_executor

        return await run_in_executor(self.add_documents, documents, ids, add_to_docstore, **kwargs)
