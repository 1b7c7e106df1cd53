"""RAGKIT_ONNX_THREADS: the intra-op threads of every ONNX session made without ``threads=``
(the embedding models and the OCR engine), read by real onnxruntime sessions; an explicit
setting wins, and a bad value is a clear error naming the variable."""

from __future__ import annotations

import pytest

from ragkit.embeddings import LocalEmbeddings
from ragkit.embeddings.onnx_runtime import THREADS_VARIABLE, default_threads, runtime_info
from ragkit.errors import ConfigurationError
from ragkit.loaders.ocr import OcrEngine

pytestmark = pytest.mark.integration


def session_threads(emb: LocalEmbeddings) -> int:
    emb.embed_query("warm up")  # the session is made on first use
    return emb._session.get_session_options().intra_op_num_threads


def test_the_variable_sets_sessions_made_without_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, "3")
    assert session_threads(LocalEmbeddings()) == 3
    assert session_threads(LocalEmbeddings(threads=2)) == 2  # an explicit setting wins
    assert runtime_info()["threads"] == 3  # what ragkit info shows
    monkeypatch.delenv(THREADS_VARIABLE)
    assert session_threads(LocalEmbeddings()) == 0  # onnxruntime's default: one per core


def test_the_ocr_engine_reads_it_when_its_models_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, "1")
    engine = OcrEngine()._engine()
    assert engine.cfg.EngineConfig.onnxruntime.intra_op_num_threads == 1
    assert (
        OcrEngine(intra_op_num_threads=2)
        ._engine()
        .cfg.EngineConfig.onnxruntime["intra_op_num_threads"]
        == 2
    )


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "\u00b2"])
def test_a_bad_value_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, value)
    with pytest.raises(ConfigurationError, match=f"{THREADS_VARIABLE} must be .* got {value!r}"):
        LocalEmbeddings().embed_query("x")


def test_unset_or_blank_means_onnxruntime_decides() -> None:
    assert default_threads({}) is None
    assert default_threads({THREADS_VARIABLE: " "}) is None
    assert default_threads({THREADS_VARIABLE: " 4 "}) == 4
