"""One query path: ``ragkit query``, ``POST /query`` and ``Index.retriever`` give the same
documents in the same order, for every retriever kind, with and without filters, and a bad
filter gets the same message from the command and from the server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from ragkit import Document
from ragkit.cli import cli
from ragkit.indexing.index_dir import Index
from ragkit.serve.app import create_app

DOCS = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care" / "docs"
KINDS = ["similarity", "mmr", "bm25", "hybrid", "parent"]
QUERIES = ["how do I adjust the brakes", "chain wear and lubrication"]
FILTERS: list[dict[str, Any] | None] = [
    None,
    {"lang": "en"},
    {"year": {"$gte": 2021}},
    {"$or": [{"lang": "fr"}, {"year": {"$in": [2018, 2019]}}]},
    {"$not": {"lang": "en"}, "year": {"$lt": 2022}},
]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bicycle-care documents with a year and a language each, in a folder index."""
    root = tmp_path_factory.mktemp("one-path")
    docs = []
    for i, path in enumerate(sorted(DOCS.glob("*.md"))[:24]):
        meta = {"source": str(path), "year": 2018 + i % 6, "lang": "fr" if i % 3 == 0 else "en"}
        docs.append(Document(path.read_text(encoding="utf-8"), metadata=meta))
    report = Index.create(root / "index", embeddings="hash", chunk_size=400).add(docs)
    assert report.ok, report
    return root / "index"


@pytest.fixture(scope="module")
def client(index_dir: Path):
    with TestClient(create_app(str(index_dir))) as c:
        yield c


def _cli(index_dir: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["query", str(index_dir), *args])
    return result


def _key(text: str, meta: dict[str, Any]) -> tuple[str, int, str]:
    return (meta.get("lang"), meta.get("year"), text)  # type: ignore[return-value]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("flt", FILTERS, ids=lambda f: json.dumps(f))
def test_command_server_and_retriever_agree(index_dir, client, kind, flt):
    idx = Index.open(index_dir)
    for question in QUERIES:
        args = [question, "--retriever", kind, "-k", "5", "--json"]
        if flt is not None:
            args += ["--filter", json.dumps(flt)]
        result = _cli(index_dir, *args)
        assert result.exit_code == 0, result.output
        by_cli = [_key(r["text"], r["metadata"]) for r in json.loads(result.stdout)["results"]]
        body: dict[str, Any] = {"query": question, "retriever": kind, "k": 5}
        if flt is not None:
            body["filter"] = flt
        reply = client.post("/query", json=body)
        assert reply.status_code == 200, reply.text
        by_http = [_key(r["text"], r["metadata"]) for r in reply.json()["results"]]
        retriever = idx.retriever(kind, k=5, filter=flt)
        by_python = [_key(d.page_content, d.metadata) for d in retriever.invoke(question)]
        assert by_cli == by_http == by_python
        assert by_cli, (kind, flt, question)  # every filter keeps something here
        if flt is not None:  # the filter held: each result matches it
            from ragkit.stores.filters import compile_filter

            keep = compile_filter(flt)
            assert all(keep({"lang": lang, "year": year}) for lang, year, _ in by_cli)


def test_dedupe_agrees(index_dir, client):
    question = "tyre pressure"
    result = _cli(index_dir, question, "--retriever", "bm25", "-k", "4", "--dedupe", "--json")
    assert result.exit_code == 0, result.output
    by_cli = [r["text"] for r in json.loads(result.stdout)["results"]]
    reply = client.post(
        "/query", json={"query": question, "retriever": "bm25", "k": 4, "dedupe": True}
    )
    by_http = [r["text"] for r in reply.json()["results"]]
    by_python = [
        d.page_content
        for d in Index.open(index_dir).retriever("bm25", k=4, dedupe=True).invoke(question)
    ]
    assert by_cli == by_http == by_python and len(by_cli) == 4


def test_the_old_key_value_filter_still_works(index_dir, client):
    old = _cli(index_dir, "brakes", "--retriever", "bm25", "--filter", "lang=fr", "--json")
    new = _cli(index_dir, "brakes", "--retriever", "bm25", "--filter", '{"lang": "fr"}', "--json")
    assert old.exit_code == new.exit_code == 0, old.output + new.output
    results = json.loads(old.stdout)["results"]
    assert results and results == json.loads(new.stdout)["results"]
    assert {r["metadata"]["lang"] for r in results} == {"fr"}


@pytest.mark.parametrize(
    "flt",
    [
        {"year": {"$regex": "20"}},
        {"year": {"$in": 2020}},
        {"$or": []},
        {"$xor": [{"lang": "en"}]},
        {"lang": {}},
    ],
    ids=lambda f: json.dumps(f),
)
def test_a_bad_filter_gets_the_same_message_both_ways(index_dir, client, flt):
    result = _cli(index_dir, "brakes", "--filter", json.dumps(flt))
    assert result.exit_code == 2
    message = result.stderr.strip().removeprefix("error: ")
    reply = client.post("/query", json={"query": "brakes", "filter": flt})
    assert reply.status_code == 422
    error = reply.json()["error"]
    assert error["field"] == "filter" and error["message"] == message
    assert "filter" in message
    with pytest.raises(ValueError, match="filter") as raised:
        Index.open(index_dir).retriever("bm25", filter=flt)
    assert str(raised.value) == message
