"""A dynamic-int8 copy of an ONNX model directory, and how closely it agrees with the original.

``ragkit models quantize DIR`` (or :func:`quantize_model_dir`) runs onnxruntime's
dynamic quantizer (weights to int8, activations quantized on the fly; needs the
``onnx`` package: ``pip install 'ragkit[quantize]'``) on the directory's graph and
writes a complete copy of the directory beside it (``DIR-int8`` by default) with the
quantized graph in the same place. The copy is built in a temporary folder and
renamed into place, so an interrupted run leaves nothing half-written.

It then embeds a sample of texts with both models and reports the cosine
similarity of each pair of vectors (an embedding model) or the correlation of the
scores (a cross-encoder), so you can decide whether the smaller, faster copy is
good enough. Typical int8 copies of sentence-transformers models agree at a cosine
above 0.98.

Example:
    >>> # report = quantize_model_dir("models/bge-small-en-v1.5")
    >>> # report.output, report.min_agreement, report.size_after / report.size_before
    >>> len(SAMPLE) >= 20
    True
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.errors import ConfigurationError

SAMPLE = [
    "How do I reset the router to its factory settings?",
    "Press and hold the reset button for ten seconds until the lights blink.",
    "Vitamin D supplements reduce the risk of fractures in older adults.",
    "The mitochondria is the powerhouse of the cell.",
    "Paris is the capital and most populous city of France.",
    "Berlin has been the capital of reunified Germany since 1990.",
    "Pump road tyres to between six and eight bar.",
    "Lubricate the chain when it squeaks or looks dry.",
    "What does the warranty cover?",
    "The warranty covers manufacturing defects for two years from purchase.",
    "def add(a, b):\n    return a + b",
    "SELECT name FROM users WHERE age > 30 ORDER BY name;",
    "Rust is a systems programming language focused on safety and speed.",
    "Iron oxide, commonly called rust, forms when iron reacts with oxygen and water.",
    "The stock market fell sharply after the central bank raised interest rates.",
    "A quick brown fox jumps over the lazy dog.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "Symptoms of influenza include fever, cough, sore throat and muscle aches.",
    "The recipe needs two cups of flour, one egg and a pinch of salt.",
    "Machine learning models can overfit when trained on too little data.",
    "Die Katze schläft auf dem Sofa.",
    "El tren sale de la estación a las ocho de la mañana.",
    "Climate change is driving more frequent and severe heatwaves across Europe.",
    (
        "Long passages matter too: a retrieval system embeds whole paragraphs, so the sample "
        "includes one that runs for several sentences about how an index is built, how chunks "
        "are embedded, and how queries are matched against those vectors by cosine similarity."
    ),
]


@dataclass(frozen=True)
class QuantizeReport:
    """What :func:`quantize_model_dir` wrote and measured."""

    source: str
    output: str
    graph: str
    size_before: int
    size_after: int
    kind: str
    """``"embeddings"`` (agreement: cosine of the two vectors) or ``"cross-encoder"``
    (agreement: correlation of the two models' scores)."""
    samples: int
    mean_agreement: float
    min_agreement: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Agreement = Callable[[Path, Path, "str | None", list[str]], np.ndarray]


def is_cross_encoder(root: Path) -> bool:
    """Whether ``root``'s ``config.json`` names a sequence-classification (reranker) model."""
    from ragkit.embeddings.model_dir import read_json

    config = read_json(root / "config.json") or {}
    architectures = config.get("architectures") if isinstance(config, dict) else None
    return isinstance(architectures, list) and any(
        str(a).endswith("ForSequenceClassification") for a in architectures
    )


def _copy_tree(source: Path, target: Path, skip: Path) -> None:
    """``source`` into ``target`` (symlinks followed), leaving out the graph ``skip``."""
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_dir() or path == skip or relative.parts[0].startswith("."):
            continue
        if path.name.startswith(skip.name) and path.parent == skip.parent:
            continue  # the graph's external weights: the quantized graph carries its own
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / relative)


def cosine_agreement(
    original: Path, copy: Path, file_name: str | None, texts: list[str]
) -> np.ndarray:
    """Cosine similarity of each text's vector from the two embedding models."""
    from ragkit.embeddings.onnx import OnnxEmbeddings
    from ragkit.embeddings.tokens import TruncationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)
        a = OnnxEmbeddings(original, file_name=file_name, device="cpu").embed_documents_array(texts)
        b = OnnxEmbeddings(copy, file_name=file_name, device="cpu").embed_documents_array(texts)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.asarray((a * b).sum(axis=1) / np.maximum(norms, 1e-12))


def quantize_model_dir(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    file_name: str | None = None,
    sample: list[str] | None = None,
    agreement: Agreement | None = None,
    kind: str = "embeddings",
) -> QuantizeReport:
    """Write a dynamic-int8 copy of the model directory ``source`` and measure its agreement.

    ``agreement(original_dir, copy_dir, file_name, texts)`` measures it (default: the
    cosine of each text's two vectors, for an embedding model); ``kind`` names it in the
    report (the command passes a cross-encoder's score correlation for rerankers).
    """
    from ragkit.embeddings.model_dir import find_onnx

    root = Path(source).expanduser()
    if not root.is_dir():
        raise ConfigurationError(f"{root} is not a model directory (no such folder)")
    root = root.resolve()
    graph = find_onnx(root, file_name)
    target = (
        Path(output).expanduser() if output is not None else root.with_name(root.name + "-int8")
    )
    if target.exists():
        raise ConfigurationError(
            f"{target} already exists; choose another --output or remove it first"
        )
    texts = list(sample) if sample else SAMPLE
    if not texts or not all(isinstance(t, str) and t.strip() for t in texts):
        raise ConfigurationError("the sample must be non-empty texts (one per line in --sample)")
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as err:
        raise ConfigurationError(
            f"quantizing needs the onnx package: pip install 'ragkit[quantize]' ({err})"
        ) from err
    relative = graph.relative_to(root)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        _copy_tree(root, work, graph)
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        size_before = sum(
            p.stat().st_size for p in graph.parent.glob(f"{graph.name}*") if p.is_file()
        )
        previous = logging.root.manager.disable
        logging.disable(
            logging.WARNING
        )  # the quantizer's advice to pre-process, on the root logger
        try:
            quantize_dynamic(
                graph,
                work / relative,
                weight_type=QuantType.QInt8,
                use_external_data_format=size_before > 1_800_000_000,
            )
        except Exception as err:  # the quantizer raises its own and onnx's exception types
            raise ConfigurationError(
                f"onnxruntime's quantizer failed on {graph}: {type(err).__name__}: {err}"
            ) from None
        finally:
            logging.disable(previous)
        scores = np.atleast_1d((agreement or cosine_agreement)(root, work, file_name, texts))
        size_after = sum(
            p.stat().st_size
            for p in (work / relative).parent.glob(f"{relative.name}*")
            if p.is_file()
        )
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return QuantizeReport(
        source=str(root),
        output=str(target),
        graph=str(relative),
        size_before=size_before,
        size_after=size_after,
        kind=kind,
        samples=len(texts),
        mean_agreement=float(scores.mean()),
        min_agreement=float(scores.min()),
    )
