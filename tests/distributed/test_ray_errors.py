"""What goes wrong with engine="ray" is a clear error, never a hang: Ray not installed, and a
worker that cannot load the model (the run fails with the worker's error; nothing is
committed). An unreachable --address is in test_ray_engine.py."""

from __future__ import annotations

import sys
import time

import pytest

from ragkit import Index
from ragkit.errors import ConfigurationError, IndexingError
from ragkit.indexing import RayEngine

from .models import UnloadableOnWorkers


def test_without_ray_the_error_names_the_extra(monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("chain wax")
    idx = Index.create(tmp_path / "idx", "hash-32")
    with pytest.raises(ConfigurationError, match=r"pip install 'ragkit\[ray\]'"):
        idx.add([tmp_path / "docs"], engine="ray")
    assert not (tmp_path / "idx" / "CURRENT").exists()


@pytest.mark.slow
def test_a_worker_that_cannot_load_the_model_fails_the_run_with_its_error(ray_cluster, tmp_path):
    (tmp_path / "docs").mkdir()
    for i in range(3):
        (tmp_path / "docs" / f"{i}.txt").write_text(f"note {i}: spoke tension and rim wear")
    model = UnloadableOnWorkers(str(tmp_path / "log"))
    idx = Index.create(tmp_path / "idx", model)
    began = time.monotonic()
    with pytest.raises(IndexingError, match="cannot load the model weights on worker"):
        idx.add([tmp_path / "docs"], engine=RayEngine())
    assert time.monotonic() - began < 120  # failed, did not wait for ever
    assert not (tmp_path / "idx" / "CURRENT").exists()
