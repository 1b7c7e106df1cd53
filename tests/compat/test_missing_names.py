"""Names LangChain code imports that ragkit lacked (issue 25), each run beside LangChain's.

Sources: https://python.langchain.com/docs/how_to/indexing/ (``index()`` with a record
manager and the ``full``/``incremental`` clean-ups, here ``InMemoryRecordManager``), and the
API reference of ``langchain_community.utils.math.cosine_similarity`` and
``langchain_core.language_models.fake_chat_models.FakeMessagesListChatModel``.

``InMemoryRecordManager`` with ``index()``, ``cosine_similarity``, ``FakeMessagesListChatModel``;
``SimpleJsonOutputParser`` and ``PydanticToolsParser`` are in tests/parsers/test_format_instructions.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ragkit.documents import Document
from ragkit.embeddings import HashEmbeddings, cosine_similarity
from ragkit.errors import InvalidInputError
from ragkit.indexing import InMemoryRecordManager, index
from ragkit.messages import AIMessage
from ragkit.models import FakeMessagesListChatModel
from ragkit.stores import InMemoryVectorStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.utils.math import cosine_similarity as lc_cosine
    from langchain_core.documents import Document as LcDocument
    from langchain_core.indexing import InMemoryRecordManager as LcRecordManager
    from langchain_core.indexing import index as lc_index
    from langchain_core.language_models.fake_chat_models import (
        FakeMessagesListChatModel as LcFakeMessages,
    )
    from langchain_core.messages import AIMessage as LcAIMessage
    from langchain_core.vectorstores import InMemoryVectorStore as LcStore


class _LcHash:
    """ragkit's HashEmbeddings behind LangChain's interface (same vectors for both runs)."""

    def __init__(self) -> None:
        self.model = HashEmbeddings(size=16)

    def embed_documents(self, texts):
        return self.model.embed_documents(texts)

    def embed_query(self, text):
        return self.model.embed_query(text)


def _run(record_manager, index_fn, store, document):
    record_manager.create_schema()
    docs = [
        document(page_content="kitty", metadata={"source": "kitty.txt"}),
        document(page_content="doggy", metadata={"source": "doggy.txt"}),
    ]
    results = [index_fn(docs, record_manager, store, cleanup="full", source_id_key="source")]
    results.append(index_fn(docs, record_manager, store, cleanup="full", source_id_key="source"))
    changed = [document(page_content="kitty!", metadata={"source": "kitty.txt"})]
    results.append(
        index_fn(changed, record_manager, store, cleanup="incremental", source_id_key="source")
    )
    results.append(index_fn([], record_manager, store, cleanup="full", source_id_key="source"))
    return [
        {k: r[k] for k in ("num_added", "num_updated", "num_skipped", "num_deleted")}
        for r in results
    ]


def test_in_memory_record_manager_indexes_as_langchains():
    ours = _run(
        InMemoryRecordManager("test"), index, InMemoryVectorStore(HashEmbeddings(size=16)), Document
    )
    theirs = _run(LcRecordManager("test"), lc_index, LcStore(_LcHash()), LcDocument)
    assert ours == theirs
    assert ours[0]["num_added"] == 2 and ours[1]["num_skipped"] == 2


def test_record_manager_filters_as_langchains():
    for manager in (InMemoryRecordManager("ns"), LcRecordManager("ns")):
        manager.update(["a", "b", "c"], group_ids=["g1", "g2", None])
        middle = manager.get_time()
        manager.update(["d"], group_ids=["g1"])
        assert manager.exists(["a", "z", "d"]) == [True, False, True]
        assert sorted(manager.list_keys(group_ids=["g1"])) == ["a", "d"]
        assert sorted(manager.list_keys(before=middle)) == ["a", "b", "c"]
        assert manager.list_keys(after=middle) == ["d"]
        assert len(manager.list_keys(limit=2)) == 2
        manager.delete_keys(["a"])
        assert manager.exists(["a"]) == [False]


def test_cosine_similarity_is_langchains():
    x = [[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [3.0, 1.0, -1.0]]
    y = [[1.0, 1.0, 1.0], [2.0, 0.0, 4.0]]
    assert np.allclose(cosine_similarity(x, y), lc_cosine(x, y))
    assert cosine_similarity([], y).tolist() == lc_cosine([], y).tolist() == []
    with pytest.raises(InvalidInputError, match="Number of columns in X and Y must be the same"):
        cosine_similarity(x, [[1.0, 2.0]])
    with pytest.raises(ValueError, match="Number of columns in X and Y must be the same"):
        lc_cosine(x, [[1.0, 2.0]])


def test_fake_messages_list_chat_model_replays_messages_as_langchains():
    ours = FakeMessagesListChatModel(responses=[AIMessage(content="one"), AIMessage(content="two")])
    theirs = LcFakeMessages(responses=[LcAIMessage(content="one"), LcAIMessage(content="two")])
    assert [ours.invoke("q").content for _ in range(3)] == [
        theirs.invoke("q").content for _ in range(3)
    ]
    assert [c.content for c in ours.stream("q")] == ["two"]
