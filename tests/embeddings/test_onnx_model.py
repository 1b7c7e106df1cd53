"""What every ONNX model of ragkit shares (ragkit.embeddings.onnx_runtime): the session made once
on first use, where it runs, and the padded token inputs of a batch.

OnnxEmbeddings (and LocalEmbeddings) and OnnxCrossEncoder are both OnnxModel; the real graphs
of tests/embeddings/onnx_models.py run.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import OnnxEmbeddings
from ragkit.embeddings.local import build_tokenizer
from ragkit.embeddings.onnx_runtime import OnnxModel, token_feeds
from ragkit.errors import ConfigurationError
from ragkit.retrievers import OnnxCrossEncoder
from tests.embeddings.onnx_models import cross_encoder_dir, minilm_dir

pytestmark = pytest.mark.integration

BASIC = {"input_ids", "attention_mask"}


def test_token_feeds_pad_to_the_longest_row() -> None:
    feeds = token_feeds([[101, 7, 8, 102], [101, 102]], 0, BASIC)
    assert sorted(feeds) == ["attention_mask", "input_ids"]
    np.testing.assert_array_equal(feeds["input_ids"], [[101, 7, 8, 102], [101, 102, 0, 0]])
    np.testing.assert_array_equal(feeds["attention_mask"], [[1, 1, 1, 1], [1, 1, 0, 0]])
    assert all(a.dtype == np.int64 for a in feeds.values())
    assert token_feeds([[5]], 9, BASIC)["input_ids"].tolist() == [[5]]


def test_token_feeds_add_type_and_position_ids_only_when_the_model_takes_them() -> None:
    rows, types = [[101, 7, 102, 8, 102], [101, 7, 102]], [[0, 0, 0, 1, 1], [0, 0, 0]]
    every = BASIC | {"token_type_ids", "position_ids"}
    feeds = token_feeds(rows, 3, every, types)
    np.testing.assert_array_equal(feeds["token_type_ids"], [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(feeds["position_ids"], [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]])
    feeds["position_ids"][0, 0] = 42  # a real array, not a broadcast view
    assert feeds["position_ids"][1, 0] == 0
    np.testing.assert_array_equal(token_feeds(rows, 3, every)["token_type_ids"], np.zeros((2, 5)))
    assert "token_type_ids" not in token_feeds(rows, 3, BASIC, types)


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("onnx-model")
    tok = build_tokenizer()
    return {
        "embeddings": minilm_dir(root / "mini"),
        "cross": cross_encoder_dir(root / "ce", {tok.token_to_id("relevant"): 1.0}),
    }


def make(which: str, path: Path, **kwargs) -> OnnxModel:
    return (
        OnnxEmbeddings(path, **kwargs)
        if which == "embeddings"
        else OnnxCrossEncoder(path, **kwargs)
    )


@pytest.mark.parametrize("which", ["embeddings", "cross"])
def test_both_models_place_their_session_alike(models: dict[str, Path], which: str) -> None:
    model = make(which, models[which], device="cpu", threads=1)
    assert isinstance(model, OnnxModel) and model._session is None  # nothing loaded yet
    assert model.execution_providers == ["CPUExecutionProvider"]
    assert model.execution_device == "cpu" and model.threads == 1
    with pytest.raises(ConfigurationError, match="device must be"):
        make(which, models[which], device="tpu")  # refused when made, not at first use
    with pytest.raises(ConfigurationError, match="not available"):
        make(which, models[which], providers=["NoSuchExecutionProvider"])


@pytest.mark.parametrize("which", ["embeddings", "cross"])
def test_the_session_is_made_once_under_concurrent_first_use(
    models: dict[str, Path], which: str
) -> None:
    model = make(which, models[which], device="cpu")
    made: list[object] = []
    check = model._check_signature

    def counting(session, path):
        made.append(session)
        return check(session, path)

    model._check_signature = counting  # type: ignore[method-assign]
    start = threading.Barrier(4)
    sessions: list[object] = []

    def use() -> None:
        start.wait()
        sessions.append(model._ensure_session())

    threads = [threading.Thread(target=use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and all(s is made[0] for s in sessions) and len(sessions) == 4
