"""An Index that lives in PostgreSQL: Index.open/create on a URL, incremental runs, the CLI.

Against the real server of the ``pg_server`` fixture (tests/postgres_server.py). The DSN
carries a random password: no repr, report, error or command output may show it.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ragkit.documents import Document
from ragkit.errors import IndexLockedError, IndexMismatchError, InvalidInputError
from ragkit.indexing import Index, apply_batch
from ragkit.indexing.postgres.index import PGIndex
from ragkit.indexing.postgres.location import PGLocation

ROOT = Path(__file__).resolve().parents[2]


def _url(pg_dsn: str, collection: str) -> str:
    return f"{pg_dsn}?collection={collection}"


def _docs(folder: Path, n: int = 6) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"f{i}.txt").write_text(f"file {i} talks about topic{i} and gears " * 5)
    return folder


def _contents(idx: Index) -> dict[str, list[str]]:
    store = idx.vectorstore
    out: dict[str, list[str]] = {}
    for doc in store.get_by_ids(store.ids):
        out.setdefault(doc.metadata["source"], []).append(doc.page_content)
    return {k: sorted(v) for k, v in out.items()}


def test_url_names_the_collection_and_hides_the_password() -> None:
    loc = PGLocation.parse("postgresql://app:s3cr%40t@db:5433/rag?sslmode=disable&collection=bikes")
    assert loc.collection == "bikes"
    assert loc.dsn == "postgresql://app:s3cr%40t@db:5433/rag?sslmode=disable"
    assert "s3cr" not in loc.display and "s3cr" not in repr(loc)
    assert PGLocation.parse("postgresql://app@db/rag").collection == "ragkit"
    with pytest.raises(ValueError, match="collection"):
        PGLocation.parse("postgresql://app:pw@db/rag?collection=a&collection=b")


def test_incremental_runs_on_a_postgres_index(tmp_path, pg_dsn, pg_collection, pg_server) -> None:
    url = _url(pg_dsn, pg_collection)
    docs = _docs(tmp_path / "docs")
    idx = Index.create(url, embeddings="hash")
    assert isinstance(idx, PGIndex)
    first = idx.add([docs])
    assert first.committed and first.num_added == 6 and first.files_loaded == 6
    assert pg_server.password not in repr(idx) and pg_server.password not in str(idx.info())

    again = Index.open(url).add([docs])  # the recorded model ("hash") is used
    assert again.files_unchanged == 6 and again.files_loaded == 0 and again.num_added == 0

    (docs / "f0.txt").write_text("a new text about brakes " * 5)
    (docs / "f1.txt").unlink()
    third = Index.open(url).add([docs])
    assert third.files_loaded == 1 and third.num_added == 1 and third.num_deleted == 2
    reader = Index.open(url)
    contents = _contents(reader)
    assert str(docs / "f1.txt") not in contents
    assert contents[str(docs / "f0.txt")] == [("a new text about brakes " * 5).strip()]
    assert sorted(reader.sources()) == sorted(str(p) for p in docs.iterdir())
    info = reader.info()
    assert info["chunks"] == 5 and info["documents"] == 5 and info["size_bytes"] > 0
    assert info["path"] == PGLocation.parse(url).display and info["last_indexed"]
    hits = reader.search("brakes", k=1)
    assert hits[0].metadata["source"] == str(docs / "f0.txt")
    assert reader.retriever("bm25", k=1).invoke("brakes")[0].metadata["source"].endswith("f0.txt")
    hybrid = reader.retriever("hybrid", k=2).invoke("topic3 gears")
    assert hybrid[0].metadata["source"].endswith("f3.txt")


def test_another_model_is_refused_before_anything_is_written(tmp_path, pg_dsn, pg_collection):
    url = _url(pg_dsn, pg_collection)
    Index.create(url, embeddings="hash").add([_docs(tmp_path / "docs", 2)])
    with pytest.raises(IndexMismatchError, match="hash") as info:
        Index.create(url, embeddings="hash-64").add([_docs(tmp_path / "more", 3)])
    assert "hash-64" in str(info.value)
    assert Index.open(url).info()["chunks"] == 2


def test_a_second_writer_waits_then_fails_clearly(tmp_path, pg_dsn, pg_collection, pg_server):
    url = _url(pg_dsn, pg_collection)
    idx = Index.create(url, embeddings="hash")
    idx.add([_docs(tmp_path / "docs", 1)])
    from ragkit.indexing.postgres.record_manager import PGRecordManager

    holder = PGRecordManager("ragkit", client=idx.client, schema=pg_collection)
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        with holder.lock(5):
            entered.set()
            release.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert entered.wait(30)
        with pytest.raises(IndexLockedError, match="another process is writing") as info:
            Index.open(url).add([_docs(tmp_path / "docs", 2)], lock_timeout=0.5)
        assert pg_server.password not in str(info.value)
    finally:
        release.set()
        thread.join()


def test_apply_batch_commits_whole_files_in_one_transaction(tmp_path, pg_dsn, pg_collection):
    url = _url(pg_dsn, pg_collection)
    idx = Index.create(url, embeddings="hash")
    chunks = [
        Document(page_content=f"part {i} of a", metadata={"source": "/w/a.txt"}) for i in range(3)
    ] + [Document(page_content="all of b", metadata={"source": "/w/b.txt"})]
    result = apply_batch(idx, chunks)
    assert result["num_added"] == 4
    # a new version of a.txt replaces all its old chunks; b.txt is not in the batch: kept
    result = apply_batch(url, [Document(page_content="a, v2", metadata={"source": "/w/a.txt"})])
    assert result["num_added"] == 1 and result["num_deleted"] == 3
    assert _contents(Index.open(url)) == {"/w/a.txt": ["a, v2"], "/w/b.txt": ["all of b"]}
    with pytest.raises(InvalidInputError, match="source"):
        apply_batch(idx, [Document(page_content="no source")])
    # a batch whose transaction fails keeps nothing of it (the surrogate fails in SQL? no:
    # refused before any write)
    with pytest.raises(InvalidInputError):
        apply_batch(idx, [Document(page_content="bad \ud800", metadata={"source": "/w/c.txt"})])
    assert "/w/c.txt" not in _contents(Index.open(url))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragkit", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.slow
def test_cli_index_query_info_on_a_postgres_index(tmp_path, pg_dsn, pg_collection, pg_server):
    url = _url(pg_dsn, pg_collection)
    docs = _docs(tmp_path / "docs", 4)
    built = _cli("index", str(docs), "--index", url, "--embedding", "hash", "-q")
    assert built.returncode == 0, built.stderr
    assert "added 4" in built.stdout
    rerun = _cli("index", str(docs), "--index", url, "-q", "--json")  # recorded model reused
    assert rerun.returncode == 0, rerun.stderr
    assert '"files_unchanged": 4' in rerun.stdout
    query = _cli("query", url, "topic2 gears", "-k", "1", "--retriever", "hybrid")
    assert query.returncode == 0, query.stderr
    assert "f2.txt" in query.stdout
    info = _cli("info", url)
    assert info.returncode == 0 and "chunks: 4" in info.stdout
    wrong = _cli("query", url.replace(pg_server.password, "wrong-password"), "gears")
    assert wrong.returncode != 0 and "refused the credentials" in wrong.stderr
    assert "Traceback" not in wrong.stderr
    for run in (built, rerun, query, info, wrong):
        assert pg_server.password not in run.stdout + run.stderr


def _folder_contents(idx: Index) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for doc in idx.vectorstore.documents():
        out.setdefault(doc.metadata["source"], []).append(doc.page_content)
    return {k: sorted(v) for k, v in out.items()}


def test_cleanup_modes_and_rebuild_as_a_folder_index(tmp_path, pg_dsn, pg_collection):
    """The same runs on a folder index and a PostgreSQL index: same counts, same chunks."""
    a, b = _docs(tmp_path / "a", 2), _docs(tmp_path / "b", 3)
    steps = [
        lambda: ([a], {}),
        lambda: ([b], {}),  # incremental: a's chunks stay (another root)
        lambda: (b / "f0.txt").write_text("b zero, version two") and ([b], {"cleanup": "none"}),
        lambda: ([b], {"cleanup": "full"}),
        lambda: (b / "f1.txt").unlink() or ([b], {}),
        lambda: ([a], {"rebuild": True}),
    ]
    folder = Index.create(tmp_path / "idx", embeddings="hash")
    url = _url(pg_dsn, pg_collection)
    Index.create(url, embeddings="hash")
    for n, step in enumerate(steps):
        paths, options = step()
        want = folder.add(paths, **options)
        got = Index.open(url).add(paths, **options)
        counts = ("num_added", "num_skipped", "num_deleted", "files_loaded", "files_unchanged")
        assert [getattr(got, c) for c in counts] == [getattr(want, c) for c in counts], n
        assert _contents(Index.open(url)) == _folder_contents(Index.open(tmp_path / "idx")), n


def test_cli_eval_on_a_postgres_index_hides_the_password(
    tmp_path, pg_dsn, pg_collection, pg_server
):
    url = _url(pg_dsn, pg_collection)
    docs = _docs(tmp_path / "docs", 3)
    Index.create(url, embeddings="hash").add([docs])
    (tmp_path / "q.jsonl").write_text('{"_id": "q1", "text": "topic1 gears"}\n')
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tf1\t1\n")
    run = _cli(
        "eval", "--index", url, "--queries", str(tmp_path / "q.jsonl"),
        "--qrels", str(tmp_path / "qrels.tsv"), "--retrievers", "bm25,hybrid", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "ndcg" in run.stdout.lower()
    assert pg_server.password not in run.stdout + run.stderr


def test_reranking_a_postgres_index(tmp_path, pg_dsn, pg_collection) -> None:
    """rerank= on a PostgreSQL index: each kind's top 50 reranked by the cross-encoder, hybrid
    fused in the database beneath it (as a folder index reranks its own kinds)."""
    from ragkit.embeddings.local import build_tokenizer
    from ragkit.retrievers import CrossEncoderReranker, OnnxCrossEncoder, PGHybridRetriever
    from tests.embeddings.onnx_models import cross_encoder_dir

    chain = build_tokenizer().token_to_id("chain")
    model = OnnxCrossEncoder(
        cross_encoder_dir(tmp_path / "ce", {chain: 1.0}, activation="Identity")
    )
    idx = Index.create(_url(pg_dsn, pg_collection), embeddings="hash")
    idx.add([ROOT / "datasets" / "bicycle-care" / "docs"])
    query = "chain wear and lubrication"
    for kind in ("similarity", "bm25", "hybrid"):
        got = idx.retriever(kind, k=4, rerank=model).invoke(query)
        scores = [d.metadata["relevance_score"] for d in got]
        assert len(got) == 4 and scores == sorted(scores, reverse=True)
        pool = idx.retriever(kind, k=50).invoke(query)
        expected = CrossEncoderReranker(model, top_n=4).compress_documents(pool, query)
        assert [d.page_content for d in got] == [d.page_content for d in expected], kind
        assert [d.metadata["relevance_score"] for d in expected] == scores
    beneath = idx.retriever("hybrid", k=4, rerank=model).base_retriever  # type: ignore[attr-defined]
    assert isinstance(beneath, PGHybridRetriever) and beneath.k == 50
    deduped = idx.retriever("hybrid", k=3, rerank=model, dedupe=True).invoke(query)
    assert len(deduped) == 3
