"""OnnxCrossEncoder and CrossEncoderReranker on a real cross-encoder graph built with onnx.helper.

The graph's logit is the sum, over the *passage* tokens of a pair (segment 1, unmasked), of a
weight per token id ("relevant" = 1, "noise" = -0.5, anything else 0). So a score tells
exactly which tokens reached the model on which side: pairing, truncation, batching order and
the score mapping are checked against numbers computed by hand.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from ragkit.documents import Document
from ragkit.embeddings import TruncationWarning
from ragkit.embeddings.local import build_tokenizer
from ragkit.errors import ConfigurationError
from ragkit.retrievers import (
    BaseCrossEncoder,
    BM25Retriever,
    ContextualCompressionRetriever,
    CrossEncoderReranker,
    HybridRetriever,
    OnnxCrossEncoder,
)
from tests.embeddings.onnx_models import cross_encoder_dir, cross_encoder_graph

pytestmark = pytest.mark.integration

TOK = build_tokenizer()
RELEVANT, NOISE = TOK.token_to_id("relevant"), TOK.token_to_id("noise")
WEIGHTS = {RELEVANT: 1.0, NOISE: -0.5}


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


@pytest.fixture(scope="module")
def raw_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cross_encoder_dir(
        tmp_path_factory.mktemp("ce") / "raw",
        WEIGHTS,
        activation="torch.nn.modules.linear.Identity",
    )


@pytest.fixture(scope="module")
def default_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cross_encoder_dir(tmp_path_factory.mktemp("ce") / "plain", WEIGHTS)


def test_pairs_score_the_passage_side_only(raw_dir: Path):
    model = OnnxCrossEncoder(raw_dir)
    assert model.activation == "identity"
    scores = model.score(
        [
            ("relevant relevant relevant", "nothing here"),  # query words do not count
            ("q", "relevant text, relevant again"),
            ("q", "relevant noise noise"),
            ("q", ""),
        ]
    )
    assert scores == [0.0, 2.0, 0.0, 0.0]


def test_score_mapping_follows_the_config(tmp_path: Path, default_dir: Path):
    pair = [("q", "relevant relevant noise")]  # logit 1.5
    assert OnnxCrossEncoder(default_dir).activation == "sigmoid"  # one label, no config: sigmoid
    assert OnnxCrossEncoder(default_dir).score(pair) == pytest.approx([sigmoid(1.5)], abs=1e-6)
    assert OnnxCrossEncoder(default_dir, activation="identity").score(pair) == [1.5]
    new_style = cross_encoder_dir(tmp_path / "new", WEIGHTS)
    config = new_style / "config.json"
    import json

    data = json.loads(config.read_text())
    data["sentence_transformers"] = {"activation_fn": "torch.nn.modules.activation.Tanh"}
    config.write_text(json.dumps(data))
    assert OnnxCrossEncoder(new_style).score(pair) == pytest.approx([math.tanh(1.5)], abs=1e-6)
    two = cross_encoder_dir(tmp_path / "two", WEIGHTS, labels=2)  # logits [-x, x]
    assert OnnxCrossEncoder(two).score(pair) == [1.5]  # several labels: raw, the relevant one
    softmax = cross_encoder_dir(
        tmp_path / "soft", WEIGHTS, labels=2, activation="torch.nn.modules.activation.Softmax"
    )
    assert OnnxCrossEncoder(softmax).score(pair) == pytest.approx([sigmoid(3.0)], abs=1e-6)
    data["sentence_transformers"] = {"activation_fn": "torch.nn.modules.activation.GELU"}
    config.write_text(json.dumps(data))
    with pytest.raises(ConfigurationError, match=r"config\.json.*GELU"):
        OnnxCrossEncoder(new_style)


def test_long_pairs_are_truncated_at_the_models_length_and_counted(tmp_path: Path):
    root = cross_encoder_dir(tmp_path / "short", WEIGHTS, activation="Identity", max_length=16)
    model = OnnxCrossEncoder(root)
    assert model.max_length == 16
    # [CLS] q [SEP] + 12 passage tokens + [SEP] = 16: the 13th passage word is cut
    fits = "relevant " * 12
    cut = "relevant " * 12 + "relevant relevant"
    with pytest.warns(TruncationWarning) as caught:
        scores = model.score([("q", fits), ("q", cut), ("q", "relevant")])
    assert scores == [12.0, 12.0, 1.0]
    warning = [w.message for w in caught if isinstance(w.message, TruncationWarning)][0]
    assert (warning.count, warning.total) == (1, 3) and "pairs" in str(warning)
    # the longer side is cut first: a long query leaves the short passage whole
    with pytest.warns(TruncationWarning):
        assert model.score([("word " * 40, "relevant relevant")]) == [2.0]
    assert OnnxCrossEncoder(root, max_length=64).score([("q", cut)]) == [14.0]


def test_batches_are_sorted_by_length_and_scores_come_back_in_order(raw_dir: Path):
    rng = np.random.default_rng(7)
    pairs, expected = [], []
    for i in range(37):
        relevant, filler = int(rng.integers(0, 6)), int(rng.integers(0, 60))
        words = ["relevant"] * relevant + ["filler"] * filler
        rng.shuffle(words)
        pairs.append((f"query {i}", " ".join(words)))
        expected.append(float(relevant))
    for batch_size in (1, 4, 100):
        assert OnnxCrossEncoder(raw_dir, batch_size=batch_size).score(pairs) == expected
    assert OnnxCrossEncoder(raw_dir).score([]) == []


def test_bad_cross_encoders_name_the_file(tmp_path: Path, raw_dir: Path):
    from onnx import TensorProto, helper

    from tests.embeddings.onnx_models import _inputs, _save

    root = cross_encoder_dir(tmp_path / "three", WEIGHTS)
    cast = helper.make_node("Cast", ["input_ids"], ["as_float"], to=TensorProto.FLOAT)
    # declared [batch, 3]: three labels, refused when the session loads
    three = helper.make_node("Concat", ["as_float"] * 3, ["logits"], axis=1)
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])
    _save(helper.make_graph([cast, three], "three", _inputs(), [out]), root / "onnx" / "model.onnx")
    with pytest.raises(ConfigurationError, match=r"onnx/model\.onnx.*\[batch, 1\]"):
        OnnxCrossEncoder(root).score([("q", "d")])
    # declared [batch, sequence]: only the run shows one value per token, refused then
    out = helper.make_tensor_value_info("as_float", TensorProto.FLOAT, ["batch", "sequence"])
    _save(helper.make_graph([cast], "per_token", _inputs(), [out]), root / "onnx" / "model.onnx")
    with pytest.raises(ConfigurationError, match=r"onnx/model\.onnx.*shape \(1, 5\).*\[1, 1\]"):
        OnnxCrossEncoder(root).score([("q", "d")])
    (root / "tokenizer.json").unlink()
    with pytest.raises(ConfigurationError, match=r"tokenizer\.json is missing"):
        OnnxCrossEncoder(root)
    with pytest.raises(ConfigurationError, match="activation must be"):
        OnnxCrossEncoder(raw_dir, activation="relu")
    assert OnnxCrossEncoder(raw_dir, device="cpu").execution_providers == ["CPUExecutionProvider"]


def test_the_graph_helper_makes_two_label_logits(tmp_path: Path):
    import onnxruntime as ort

    path = cross_encoder_graph(tmp_path / "g.onnx", {RELEVANT: 2.0}, labels=2)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ids = np.array([[101, RELEVANT, 102]], dtype=np.int64)
    feeds = {
        "input_ids": ids,
        "attention_mask": np.ones_like(ids),
        "token_type_ids": np.ones_like(ids),
    }
    assert session.run(["logits"], feeds)[0].tolist() == [[-2.0, 2.0]]


# -- the reranker ----------------------------------------------------------------------------------

DOCS = [
    Document("nothing relevant-free here at all", id="a"),
    Document("relevant once", id="b"),
    Document("relevant relevant twice", id="c"),
    Document("noise noise relevant", id="d"),
    Document("relevant relevant twice too", id="e"),
]


def test_reranker_orders_keeps_top_n_and_records_scores(raw_dir: Path):
    reranker = CrossEncoderReranker(model=OnnxCrossEncoder(raw_dir), top_n=3)
    got = reranker.compress_documents(DOCS, "which is relevant?")
    assert [d.id for d in got] == ["c", "e", "a"]  # ties keep the retriever's order
    assert [d.metadata["relevance_score"] for d in got] == [2.0, 2.0, 1.0]
    assert [d.metadata["score"] for d in got] == [2.0, 2.0, 1.0]
    assert DOCS[2].metadata == {}  # the inputs are left alone
    assert CrossEncoderReranker(OnnxCrossEncoder(raw_dir)).top_n == 3  # LangChain's default
    assert reranker.compress_documents([], "q") == []
    by_path = CrossEncoderReranker(model=str(raw_dir), top_n=1)
    assert [d.id for d in by_path.compress_documents(DOCS, "q")] == ["c"]
    with pytest.raises(ConfigurationError, match="top_n"):
        CrossEncoderReranker(model=OnnxCrossEncoder(raw_dir), top_n=-1)
    with pytest.raises(ConfigurationError, match=r"has no score\(\)"):
        CrossEncoderReranker(model=object())


def test_reranker_matches_langchains(raw_dir: Path):
    """Differential: LangChain's CrossEncoderReranker over the same model gives the same order."""
    from langchain_classic.retrievers.document_compressors import (
        CrossEncoderReranker as LCReranker,
    )
    from langchain_core.cross_encoders import BaseCrossEncoder as LCBase
    from langchain_core.documents import Document as LCDocument

    model = OnnxCrossEncoder(raw_dir)

    class Bridge(LCBase):
        def score(self, text_pairs):
            return model.score(text_pairs)

    lc_docs = [LCDocument(page_content=d.page_content, id=d.id) for d in DOCS]
    for top_n in (1, 3, 5):
        theirs = LCReranker(model=Bridge(), top_n=top_n).compress_documents(lc_docs, "q")
        ours = CrossEncoderReranker(model=model, top_n=top_n).compress_documents(DOCS, "q")
        assert [d.id for d in ours] == [d.id for d in theirs]


def test_contextual_compression_and_hybrid_rerank(raw_dir: Path):
    from ragkit.embeddings import HashEmbeddings

    texts = [d.page_content for d in DOCS]
    bm25 = BM25Retriever.from_texts(texts, k=5)
    retriever = ContextualCompressionRetriever(
        base_compressor=CrossEncoderReranker(model=OnnxCrossEncoder(raw_dir), top_n=2),
        base_retriever=bm25,
    )
    assert [d.page_content for d in retriever.invoke("relevant")] == [texts[2], texts[4]]

    hybrid = HybridRetriever.from_documents(DOCS, HashEmbeddings(32), k=2, rerank=str(raw_dir))
    got = hybrid.invoke("relevant twice")
    assert [d.id for d in got] == ["c", "e"] and got[0].metadata["relevance_score"] == 2.0
    plain = HybridRetriever.from_documents(DOCS, HashEmbeddings(32), k=5)
    assert {d.id for d in plain.invoke("relevant twice")} >= {"c", "e"}
    import asyncio

    assert [d.id for d in asyncio.run(hybrid.ainvoke("relevant twice"))] == ["c", "e"]


def test_a_custom_cross_encoder_is_a_base_cross_encoder():
    class Length(BaseCrossEncoder):
        def score(self, text_pairs):
            return [float(len(d)) for _, d in text_pairs]

    got = CrossEncoderReranker(model=Length(), top_n=2).compress_documents(DOCS, "q")
    assert [d.id for d in got] == ["a", "e"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError):
            BaseCrossEncoder()  # type: ignore[abstract]
