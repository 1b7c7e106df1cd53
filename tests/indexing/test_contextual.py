"""Contextual retrieval plumbing with a scripted model: the context is searchable (BM25 and
vectors) but not in the returned passage, is cached per (document, chunk, model, prompt), and
a model error fails the file, not the job."""

from __future__ import annotations

from pathlib import Path

from ragkit.caches import SQLiteCache
from ragkit.indexing.contextual import Contextualizer
from ragkit.indexing.index_dir import Index
from ragkit.indexing.options import WriteOptions
from ragkit.models import FakeChatModel
from ragkit.querying.service import Query, QueryService

TYRES = "Pump road tyres to six bar before a ride. Check the sidewall for cuts."
CHAIN = "Clean the chain with degreaser, then oil each link and wipe off the rest."


def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tyres.md").write_text(TYRES)
    (docs / "chain.md").write_text(CHAIN)
    return docs


def write(idx, docs, model, cache, **kw):
    ctx = Contextualizer(model, cache=cache)
    report = idx.write([str(docs)], WriteOptions(workers=1, contextualize=ctx, **kw))
    return report, ctx


def test_contexts_are_searched_but_not_returned(tmp_path):
    docs = folder(tmp_path)
    idx = Index.create(tmp_path / "idx", "hash")
    model = FakeChatModel(["zebracontext about wheels", "zebracontext about drivetrains"])
    report, ctx = write(idx, docs, model, SQLiteCache(str(tmp_path / "ctx.db")))
    assert report.ok and ctx.calls == model.call_count == 2
    # the whole document went into each prompt, with the chunk
    assert all("<document>" in c[0].content for c in model.calls)
    service = QueryService(Index.open(tmp_path / "idx"))
    for kind in ("bm25", "similarity", "hybrid"):
        hits = service.search(Query("zebracontext", kind, 2))
        assert {h.page_content for h in hits} == {TYRES, CHAIN}, kind
        assert all(h.metadata["context"].startswith("zebracontext") for h in hits)
    # the stored chunk holds the context before the text (what BM25 and the vectors saw)
    stored = Index.open(tmp_path / "idx").vectorstore.documents()
    assert all(d.page_content.startswith(d.metadata["context"] + "\n\n") for d in stored)


def test_an_unchanged_file_costs_no_model_call_on_reindex(tmp_path):
    docs = folder(tmp_path)
    cache = SQLiteCache(str(tmp_path / "ctx.db"))
    idx = Index.create(tmp_path / "idx", "hash")
    write(idx, docs, FakeChatModel(["c1", "c2"]), cache)
    again = FakeChatModel(["c1", "c2"])  # the same model (its replies are part of its key)
    report, ctx = write(Index.open(tmp_path / "idx"), docs, again, cache, rebuild=True)
    assert report.ok and again.call_count == 0 and ctx.calls == 0  # every file re-read, all cached
    (docs / "chain.md").write_text(CHAIN + " Replace it every 3000 km.")
    changed = FakeChatModel(["c1", "c2"])
    report, ctx = write(Index.open(tmp_path / "idx"), docs, changed, cache)
    assert report.ok and changed.call_count == 1  # only the changed file's chunk
    assert "Replace it every 3000 km" in changed.calls[0][0].content


def test_another_prompt_or_model_is_another_cache_entry(tmp_path):
    cache = SQLiteCache(str(tmp_path / "ctx.db"))
    first = Contextualizer(FakeChatModel(["a"]), cache=cache)
    assert first.context("doc", "chunk") == "a"
    assert Contextualizer(FakeChatModel(["b"]), cache=cache).context("doc", "chunk") == "b"
    reprompt = Contextualizer(FakeChatModel(["a"]), cache=cache, prompt="{document}|{chunk}")
    assert reprompt.context("doc", "chunk") == "a" and reprompt.calls == 1
    same = Contextualizer(FakeChatModel(["a"]), cache=cache)
    assert same.context("doc", "chunk") == "a" and same.calls == 0


def test_a_model_error_fails_that_file_only(tmp_path):
    docs = folder(tmp_path)
    idx = Index.create(tmp_path / "idx", "hash")
    model = FakeChatModel([RuntimeError("model server is down"), "fine context"])
    report, _ = write(idx, docs, model, None)
    assert len(report.failures) == 1 and "model server is down" in str(report.failures)
    hits = QueryService(Index.open(tmp_path / "idx")).search(Query("fine", "bm25", 4))
    assert len(hits) == 1 and hits[0].metadata["context"] == "fine context"
