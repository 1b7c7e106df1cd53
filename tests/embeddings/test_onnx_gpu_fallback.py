"""Device choice when the onnxruntime build offers CUDA (``onnxruntime-gpu``) but no GPU answers.

The test machine has neither onnxruntime-gpu nor a GPU, so the one thing simulated here is the
build's provider list (``available_providers``); the sessions are real onnxruntime sessions,
which run on the CPU because CUDA cannot start. ``device="auto"`` must fall back to the CPU
quietly; ``device="cuda"`` must say that no GPU could be used and what to do instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import LocalEmbeddings, OnnxEmbeddings, onnx_runtime
from ragkit.errors import ConfigurationError
from tests.embeddings.onnx_models import minilm_dir

pytestmark = [
    pytest.mark.integration,
    # onnxruntime's CPU build warns that it was asked for CUDA: the simulated part, not ragkit's
    pytest.mark.filterwarnings("ignore:Specified provider 'CUDAExecutionProvider':UserWarning"),
]

CPU, CUDA = onnx_runtime.CPU, onnx_runtime.CUDA


@pytest.fixture()
def gpu_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_runtime, "available_providers", lambda: [CUDA, CPU])


def test_auto_asks_for_cuda_first_when_the_build_offers_it(gpu_build: None):
    assert onnx_runtime.choose_providers(None, "auto") == [CUDA, CPU]
    assert onnx_runtime.choose_providers(None, "cuda") == [(CUDA, {"device_id": 0}), CPU]
    assert onnx_runtime.choose_providers(None, "cuda:1") == [(CUDA, {"device_id": 1}), CPU]
    assert onnx_runtime.choose_providers(None, "cpu") == [CPU]


def test_auto_falls_back_to_the_cpu_and_cuda_says_why_not(gpu_build: None, tmp_path: Path):
    mini = minilm_dir(tmp_path / "mini")
    emb = OnnxEmbeddings(mini)
    vector = emb.embed_query("tyre pressure")
    assert emb.execution_providers == [CPU]
    np.testing.assert_allclose(
        vector, LocalEmbeddings(device="cpu").embed_query("tyre pressure"), atol=1e-6
    )
    with pytest.raises(ConfigurationError, match=r"no CUDA GPU could be used for .*model\.onnx"):
        OnnxEmbeddings(mini, device="cuda").embed_query("tyre pressure")
