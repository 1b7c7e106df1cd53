"""The real ``ragkit`` command with models you bring: ``--embedding onnx:DIR``, ``--rerank``,
``ragkit models quantize`` / ``download`` and the device in ``ragkit info``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ragkit.embeddings import OnnxEmbeddings
from ragkit.indexing import Index
from ragkit.retrievers import OnnxCrossEncoder
from tests.embeddings.onnx_models import cross_encoder_dir, minilm_dir, toy_encoder_dir

from .helpers import env, ragkit

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care" / "docs"


def ragkit_in(cwd: Path, *args: object) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ragkit", *map(str, args)]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=180, env=env())


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from ragkit.embeddings.local import build_tokenizer

    root = tmp_path_factory.mktemp("models")
    chain = build_tokenizer().token_to_id("chain")
    return {
        "mini": minilm_dir(root / "mini"),
        "toy": toy_encoder_dir(root / "toy", dim=32),
        "ce": cross_encoder_dir(root / "ce", {chain: 1.0}, activation="Identity"),
    }


@pytest.fixture(scope="module")
def index(models, tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("indexes")
    # a relative model path, from the models' folder: the index records it absolutely
    proc = ragkit_in(
        models["mini"].parent, "index", DOCS, "--index", where / "idx", "--embedding",
        "onnx:mini", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["num_added"] == data["chunks"] >= 50 and data["truncated_chunks"] == 0
    return where / "idx"


@pytest.mark.slow
def test_index_records_the_model_and_query_reopens_it(models, index, tmp_path):
    info = ragkit_in(tmp_path, "info", index, "--json")
    assert info.returncode == 0, info.stderr
    data = json.loads(info.stdout)
    assert data["embedding"] == f"onnx:{models['mini'].resolve()}"
    assert data["model"] == OnnxEmbeddings(models["mini"]).model_id and data["dimension"] == 384
    assert data["runtime"]["device"] in ("cpu", "cuda")
    assert data["runtime"]["providers"][-1] == "CPUExecutionProvider"
    assert "CPUExecutionProvider" in data["runtime"]["available_providers"]
    text = ragkit("info", index)
    assert "device: cpu (CPUExecutionProvider" in text.stdout or "device: cuda" in text.stdout

    query = ragkit_in(tmp_path, "query", index, "how do I clean a chain?", "--json", "-k", "3")
    assert query.returncode == 0, query.stderr
    got = [r["id"] for r in json.loads(query.stdout)["results"]]
    expected = Index.open(index).retriever("hybrid", k=3).invoke("how do I clean a chain?")
    assert got == [d.id for d in expected]


@pytest.mark.slow
def test_query_reranks_with_a_cross_encoder(models, index):
    question = "chain wear and lubrication"
    proc = ragkit("query", index, question, "--rerank", models["ce"], "-k", "4", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["score_kind"]["name"] == "rerank" and data["rerank"] == str(models["ce"])
    scores = [r["score"] for r in data["results"]]
    assert len(scores) == 4 and scores == sorted(scores, reverse=True)
    model = OnnxCrossEncoder(models["ce"])
    expected = Index.open(index).retriever("hybrid", k=4, rerank=model).invoke(question)
    assert [r["id"] for r in data["results"]] == [d.id for d in expected]
    text = ragkit("query", index, question, "--rerank", models["ce"], "--retriever", "bm25")
    assert text.returncode == 0 and "cross-encoder relevance, higher is better" in text.stdout
    bad = ragkit("query", index, question, "--rerank", models["toy"].parent / "absent")
    assert bad.returncode == 2 and "absent" in bad.stderr


def test_another_dimension_is_refused_and_nothing_is_written(models, index):
    before = {p: p.stat().st_mtime_ns for p in index.rglob("*") if p.is_file()}
    proc = ragkit("index", DOCS, "--index", index, "--embedding", f"onnx:{models['toy']}")
    assert proc.returncode == 2
    assert "dimension 384" in proc.stderr and "dimension 32" in proc.stderr
    assert {p: p.stat().st_mtime_ns for p in index.rglob("*") if p.is_file()} == before


def test_long_chunks_are_counted_as_truncated(models, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "long.txt").write_text(" ".join(f"word{i}" for i in range(600)), encoding="utf-8")
    (docs / "short.txt").write_text("A short note about tyres.", encoding="utf-8")
    proc = ragkit(
        "index", docs, "--index", tmp_path / "idx", "--embedding", f"onnx:{models['mini']}",
        "--chunk-size", "6000", "--chunk-overlap", "0",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "1 chunks were longer than the model's maximum of 256 tokens" in proc.stdout
    assert "TruncationWarning" not in proc.stderr  # counted once, not a warning per batch


def test_quantize_writes_an_int8_copy_and_reports_agreement(models, tmp_path):
    source = tmp_path / "toy"
    shutil.copytree(models["toy"], source)
    proc = ragkit("models", "quantize", source, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    out = Path(report["output"])
    assert out == source.with_name("toy-int8") and report["kind"] == "embeddings"
    assert report["size_after"] < report["size_before"] / 2
    assert 0.9 < report["min_agreement"] <= report["mean_agreement"] <= 1.0001
    assert report["samples"] >= 20
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in source.iterdir())
    quantized = OnnxEmbeddings(out)
    assert quantized.model_id != OnnxEmbeddings(source).model_id
    assert quantized.embed_query("hello").__len__() == 32
    again = ragkit("models", "quantize", source)
    assert again.returncode == 2 and "already exists" in again.stderr
    sample = tmp_path / "sample.txt"
    sample.write_text("one text\nanother text\n\n", encoding="utf-8")
    text = ragkit("models", "quantize", source, "-o", tmp_path / "q2", "--sample", sample)
    assert text.returncode == 0, text.stderr
    assert "cosine agreement with the original on 2 texts" in text.stdout
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp folder left


def test_quantize_a_cross_encoder_reports_score_correlation(models, tmp_path):
    proc = ragkit("models", "quantize", models["ce"], "-o", tmp_path / "ce-int8", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["kind"] == "cross-encoder" and report["min_agreement"] > 0.99
    assert OnnxCrossEncoder(tmp_path / "ce-int8").score([("q", "chain chain")]) == pytest.approx(
        [2.0], abs=0.05
    )


def test_download_uses_the_cache_and_never_the_network_in_tests(models, tmp_path):
    from tests.embeddings.test_onnx_embeddings import fake_hub_cache

    cache = tmp_path / "hub"
    snapshot = fake_hub_cache(cache, "acme/mini-onnx", models["mini"])
    proc = ragkit("models", "download", "acme/mini-onnx", "--cache-folder", cache, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["path"] == str(snapshot)
    missing = ragkit("models", "download", "acme/absent", "--cache-folder", cache)
    assert missing.returncode == 2 and "cannot fetch model 'acme/absent'" in missing.stderr
    assert ragkit("models", "download", "../x").returncode == 2
