"""Index with a model you bring: ``onnx:DIR`` recorded so ``Index.open`` re-creates it, a model of
another dimension refused before anything is written, and reranking through ``Index.retriever``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragkit.embeddings import OnnxEmbeddings
from ragkit.errors import ConfigurationError, IndexMismatchError
from ragkit.indexing import Index
from ragkit.indexing.folder.config_file import read_toml
from ragkit.retrievers import CrossEncoderReranker, OnnxCrossEncoder
from tests.embeddings.onnx_models import (
    cross_encoder_dir,
    minilm_dir,
    toy_encoder_dir,
)

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care" / "docs"


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


def snapshot_of(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_onnx_embedding_is_recorded_and_reopened(models, tmp_path, monkeypatch):
    monkeypatch.chdir(models["mini"].parent)
    idx = Index.create(tmp_path / "idx", embeddings="onnx:mini")  # relative to the cwd
    report = idx.add([str(DOCS)])
    assert report.ok and report.chunks >= 50
    meta = read_toml(tmp_path / "idx" / "ragkit.toml")["index"]
    assert meta["embedding"] == f"onnx:{models['mini'].resolve()}"  # absolute: opens anywhere
    assert meta["model_id"] == OnnxEmbeddings(models["mini"]).model_id
    assert meta["dimension"] == 384
    monkeypatch.chdir(tmp_path)
    again = Index.open(tmp_path / "idx")
    assert isinstance(again.embeddings, OnnxEmbeddings) and again.model_id == meta["model_id"]
    hits = again.search("how do I clean a chain?", k=3)
    assert hits == idx.search("how do I clean a chain?", k=3) and len(hits) == 3
    # an OnnxEmbeddings object records the same name
    other = Index.create(tmp_path / "idx2", embeddings=OnnxEmbeddings(models["mini"]))
    assert read_toml(tmp_path / "idx2" / "ragkit.toml")["index"]["embedding"] == meta["embedding"]
    assert other.embedding_name == meta["embedding"]


def test_a_model_of_another_dimension_is_refused_before_anything_is_written(models, tmp_path):
    idx = Index.create(tmp_path / "idx", embeddings=f"onnx:{models['mini']}")
    idx.add([str(DOCS)])
    before = snapshot_of(tmp_path / "idx")
    with pytest.raises(
        IndexMismatchError, match=r"dimension 384.*dimension 32.*nothing was written"
    ):
        Index.create(tmp_path / "idx", embeddings=f"onnx:{models['toy']}")
    with pytest.raises(IndexMismatchError, match="dimension 32"):
        Index.open(tmp_path / "idx", embeddings=OnnxEmbeddings(models["toy"]))
    assert snapshot_of(tmp_path / "idx") == before


def test_reranking_through_the_index(models, tmp_path):
    idx = Index.create(tmp_path / "idx", embeddings=f"onnx:{models['mini']}")
    idx.add([str(DOCS)])
    query = "chain wear and lubrication"
    model = OnnxCrossEncoder(models["ce"])
    for kind in ("similarity", "bm25", "hybrid"):
        got = idx.retriever(kind, k=4, rerank=model).invoke(query)
        scores = [d.metadata["relevance_score"] for d in got]
        assert len(got) == 4 and scores == sorted(scores, reverse=True)
        # the same as reranking the kind's top 50 by hand
        pool = idx.retriever(kind, k=50).invoke(query)
        expected = CrossEncoderReranker(model, top_n=4).compress_documents(pool, query)
        assert [d.metadata["relevance_score"] for d in expected] == scores
    by_path = idx.retriever("hybrid", k=2, rerank=str(models["ce"])).invoke(query)
    assert by_path[0].page_content.lower().count("chain") >= by_path[1].page_content.lower().count(
        "chain"
    )
    deduped = idx.retriever("bm25", k=3, rerank=model, dedupe=True).invoke(query)
    assert len(deduped) == 3


def test_the_recorded_model_directory_moving_is_a_clear_error(models, tmp_path):
    import shutil

    moving = tmp_path / "moving"
    shutil.copytree(models["mini"], moving, symlinks=True)
    Index.create(tmp_path / "idx", embeddings=f"onnx:{moving}")
    os.rename(moving, tmp_path / "moved")
    with pytest.raises(
        ConfigurationError, match=r"built with the embedding model 'onnx:.*moving'.*no such folder"
    ):
        Index.open(tmp_path / "idx")
    again = Index.open(tmp_path / "idx", embeddings=OnnxEmbeddings(tmp_path / "moved"))
    assert again.model_id == OnnxEmbeddings(models["mini"]).model_id
