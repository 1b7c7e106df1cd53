"""Length-sorted batching in OnnxEmbeddings and OnnxCrossEncoder: the model sees the inputs
longest first, in batches of ``batch_size``, each padded only to its own longest member; the
results still come back in input order.

The real models run; the batch method of each instance is wrapped to record what it is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragkit.embeddings import OnnxEmbeddings
from ragkit.embeddings.local import build_tokenizer
from ragkit.retrievers import OnnxCrossEncoder
from tests.embeddings.onnx_models import cross_encoder_dir, minilm_dir

pytestmark = pytest.mark.integration

WORDS = "chain brake tyre saddle spoke pedal crank valve rim hub".split()


def texts(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 40)))) for _ in range(n)]


def record(monkeypatch: pytest.MonkeyPatch, model: Any, method: str, width: Any) -> list[list[int]]:
    """Wrap ``model.<method>``; returns the list that gets each call's widths, batch by batch."""
    seen: list[list[int]] = []
    real = getattr(model, method)

    def spy(batch: Any, *args: Any) -> Any:
        seen.append([width(item) for item in batch])
        return real(batch, *args)

    monkeypatch.setattr(model, method, spy)
    return seen


def check_sorted_batches(seen: list[list[int]], total: int, batch_size: int) -> None:
    assert [len(b) for b in seen[:-1]] == [batch_size] * (len(seen) - 1)
    assert sum(len(b) for b in seen) == total
    flat = [w for batch in seen for w in batch]
    assert flat == sorted(flat, reverse=True)  # longest first across all batches
    assert len(set(flat)) > 3  # the inputs really differ in length


def test_embeddings_run_longest_first_and_return_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    emb = OnnxEmbeddings(minilm_dir(tmp_path / "mini"), batch_size=8)
    sample = texts(30, seed=3)
    expected = OnnxEmbeddings(minilm_dir(tmp_path / "again"), batch_size=1).embed_documents_array(
        sample
    )
    seen = record(monkeypatch, emb, "run_batch", len)
    got = emb.embed_documents_array(sample)
    check_sorted_batches(seen, total=30, batch_size=8)
    np.testing.assert_allclose(got, expected, atol=2e-5)


def test_cross_encoder_runs_longest_first_and_returns_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    tok = build_tokenizer()
    weights = {tok.token_to_id("chain"): 1.0, tok.token_to_id("brake"): -0.5}
    model = OnnxCrossEncoder(cross_encoder_dir(tmp_path / "ce", weights), batch_size=4)
    pairs = [(f"query {i}", t) for i, t in enumerate(texts(17, seed=5))]
    expected = [model.score([p])[0] for p in pairs]
    seen = record(monkeypatch, model, "_run", lambda row: len(row.ids))
    got = model.score(pairs)
    check_sorted_batches(seen, total=17, batch_size=4)
    np.testing.assert_allclose(got, expected, atol=1e-5)
