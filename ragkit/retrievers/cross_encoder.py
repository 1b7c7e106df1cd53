"""Cross-encoders: score (query, passage) pairs together, for reranking; ONNX on onnxruntime.

:class:`BaseCrossEncoder` is LangChain's interface (``score(text_pairs) -> list[float]``);
:class:`OnnxCrossEncoder` runs any cross-encoder exported to ONNX (ms-marco MiniLM,
bge-reranker, mxbai-rerank, jina-reranker ...) from a directory or a repository name,
as :class:`~ragkit.embeddings.OnnxEmbeddings` does for embedding models, with the same
``device=`` / ``providers=``.

Pairs are tokenised together (``[CLS] query [SEP] passage [SEP]``), truncated at the
model's maximum length (the longer side first, as sentence-transformers does; cut
pairs are counted in a :class:`~ragkit.embeddings.TruncationWarning`), sorted by length
and run in batches. The score is the model's logit passed through the activation its
``config.json`` names (sentence-transformers' ``activation_fn`` or
``sbert_ce_default_activation_function``; without one, sigmoid for a one-label model,
as sentence-transformers does), or ``activation=`` when given. A two-label model
scores with its second ("relevant") label, as LangChain's ``HuggingFaceCrossEncoder``.

Example:
    >>> # reranker = OnnxCrossEncoder("cross-encoder/ms-marco-MiniLM-L6-v2")
    >>> # reranker.score([("capital of France?", "Paris is the capital of France."),
    >>> #                 ("capital of France?", "Bananas are yellow.")])
    >>> # [0.99..., 0.00...]
    >>> sorted(ACTIVATIONS)
    ['identity', 'sigmoid', 'softmax', 'tanh']
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.embeddings.onnx_runtime import OnnxModel, token_feeds
from ragkit.errors import ConfigurationError

ACTIVATIONS = {"identity", "sigmoid", "tanh", "softmax"}
_TORCH_NAMES = {
    "Identity": "identity",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Softmax": "softmax",
}
_INPUTS = {"input_ids", "attention_mask", "token_type_ids", "position_ids"}


class BaseCrossEncoder(ABC):
    """Scores text pairs (LangChain's ``BaseCrossEncoder``): higher means more relevant."""

    @abstractmethod
    def score(self, text_pairs: list[tuple[str, str]]) -> list[float]:
        """One score per ``(query, passage)`` pair, in order."""


def activation_from_config(config: dict[str, Any], where: str) -> str | None:
    """The activation a cross-encoder's ``config.json`` names (``None``: it names none)."""
    st = config.get("sentence_transformers")
    name = st.get("activation_fn") if isinstance(st, dict) else None
    name = name or config.get("sbert_ce_default_activation_function")
    if name is None:
        return None
    short = _TORCH_NAMES.get(str(name).rsplit(".", 1)[-1])
    if short is None:
        raise ConfigurationError(
            f"{where}: activation {name!r} is not one ragkit applies ({', '.join(sorted(_TORCH_NAMES))}); "
            "pass activation= ('sigmoid', 'identity', 'tanh' or 'softmax')"
        )
    return short


def _activate(logits: np.ndarray, activation: str) -> np.ndarray:
    """Scores from ``(batch, labels)`` logits: the activation, then the relevant label."""
    if activation == "sigmoid":
        values = 1.0 / (1.0 + np.exp(-logits))
    elif activation == "tanh":
        values = np.tanh(logits)
    elif activation == "softmax":
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        values = shifted / shifted.sum(axis=1, keepdims=True)
    else:
        values = logits
    return values[:, -1] if values.shape[1] == 2 else values[:, 0]


class OnnxCrossEncoder(BaseCrossEncoder, OnnxModel):
    """A cross-encoder exported to ONNX (see the module docstring).

    Args:
        model_name_or_path: a local model directory (``model.onnx`` or ``onnx/model*.onnx``,
            ``tokenizer.json``, ``config.json``) or a repository name fetched into the
            Hugging Face cache.
        file_name: which ``.onnx`` file of the directory to run.
        revision: the repository revision to fetch.
        download: fetch a repository missing from the Hugging Face cache.
        cache_folder: the Hugging Face cache to use.
        max_length: truncate each pair at this many tokens (default: the model's maximum).
        activation: ``"sigmoid"`` (scores in 0..1), ``"identity"`` (raw logits), ``"tanh"``
            or ``"softmax"``; default: what the model's config says.
        batch_size: pairs per model call (sorted by length first).
        threads: onnxruntime intra-op threads (``None``: one per core).
        providers: onnxruntime execution providers, passed through (default: from ``device``).
        device: ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    """

    def __init__(
        self,
        model_name_or_path: str | os.PathLike[str],
        *,
        file_name: str | None = None,
        revision: str | None = None,
        download: bool = True,
        cache_folder: str | None = None,
        max_length: int | None = None,
        activation: str | None = None,
        batch_size: int = 32,
        threads: int | None = None,
        providers: Sequence[Any] | None = None,
        device: str = "auto",
    ) -> None:
        from ragkit.embeddings.model_dir import ModelSource, model_files, model_length, read_json

        self._init_runtime(batch_size, threads, providers, device)
        if activation is not None and activation not in ACTIVATIONS:
            raise ConfigurationError(
                f"activation must be one of {', '.join(sorted(ACTIVATIONS))} or None, got {activation!r}"
            )
        root = ModelSource(
            model_name_or_path, file_name, revision, download, cache_folder
        ).resolve()
        config = read_json(root / "config.json") or {}
        if not isinstance(config, dict):
            raise ConfigurationError(f"{root / 'config.json'} must hold a JSON object")
        bert = read_json(root / "sentence_bert_config.json") or {}
        from_st = bert.get("max_seq_length") if isinstance(bert, dict) else None
        length = model_length(
            root, max_length, from_st if isinstance(from_st, int) else None, "OnnxCrossEncoder"
        )
        files = model_files(root, file_name, length)
        self.root = root
        self.source = str(model_name_or_path)
        self.model_file = files.model_file
        self.max_length = length
        self._tokenizer = files.tokenizer
        self._pad = files.pad
        self._configured_activation = activation or activation_from_config(
            config, str(root / "config.json")
        )
        self.activation = self._configured_activation or "sigmoid"

    def __repr__(self) -> str:
        return f"OnnxCrossEncoder({self.source!r}, activation={self.activation!r})"

    # -- the session (made on first use: ragkit.embeddings.onnx_runtime.OnnxModel) -------------
    def _resolve_model(self) -> Path:
        return self.model_file

    def _check_signature(self, session: Any, path: Path) -> None:
        inputs = {i.name for i in session.get_inputs()}
        outputs = {o.name: list(o.shape) for o in session.get_outputs()}
        if not {"input_ids", "attention_mask"} <= inputs or inputs - _INPUTS:
            raise ConfigurationError(
                f"{str(path)!r} has inputs {sorted(inputs)}; OnnxCrossEncoder feeds input_ids "
                "and attention_mask (token_type_ids and position_ids when present) and nothing else"
            )
        name = "logits" if "logits" in outputs else next(iter(outputs))
        shape = outputs[name]
        labels = shape[-1] if len(shape) == 2 else None
        if len(shape) != 2 or (isinstance(labels, int) and labels not in (1, 2)):
            raise ConfigurationError(
                f"{str(path)!r} has outputs {outputs}; a cross-encoder returns logits of shape "
                "[batch, 1] (a relevance score) or [batch, 2] (not relevant, relevant). Is this a "
                "reranker model?"
            )
        self._feeds, self._output = inputs, name
        if self._configured_activation is None and labels == 2:
            self.activation = "identity"  # sentence-transformers' default for several labels

    def _run(self, rows: list[Any]) -> np.ndarray:
        session = self._ensure_session()
        feeds = token_feeds(
            [r.ids for r in rows], self._pad, self._feeds, [r.type_ids for r in rows]
        )
        logits = np.asarray(session.run([self._output], feeds)[0], dtype=np.float32)
        if logits.ndim != 2 or logits.shape[0] != len(rows) or logits.shape[1] not in (1, 2):
            raise ConfigurationError(
                f"{str(self.model_file)!r} returned {self._output} of shape {logits.shape} for "
                f"{len(rows)} pairs; expected [{len(rows)}, 1] or [{len(rows)}, 2]"
            )
        return _activate(logits, self.activation)

    def score_array(self, text_pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Scores of ``text_pairs`` as a float32 array, in input order."""
        from ragkit.embeddings.tokens import encode

        pairs = [tuple(p) if isinstance(p, list) else p for p in text_pairs]
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        rows = encode(self._tokenizer, pairs, max_length=self.max_length, owner="OnnxCrossEncoder")
        order = sorted(range(len(rows)), key=lambda i: len(rows[i].ids), reverse=True)
        out = np.empty(len(rows), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            out[batch] = self._run([rows[i] for i in batch])
        return out

    def score(self, text_pairs: list[tuple[str, str]]) -> list[float]:
        """One score per ``(query, passage)`` pair, in order (higher is more relevant)."""
        return [float(s) for s in self.score_array(text_pairs)]


def score_agreement(
    original: Path, copy: Path, file_name: str | None, texts: list[str]
) -> np.ndarray:
    """Correlation of two cross-encoders' scores over every ordered pair of ``texts``
    (how ``ragkit models quantize`` compares a reranker with its int8 copy)."""
    import warnings

    from ragkit.embeddings.tokens import TruncationWarning

    pairs = [(a, b) for a in texts for b in texts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)
        x = OnnxCrossEncoder(original, file_name=file_name, device="cpu").score_array(pairs)
        y = OnnxCrossEncoder(copy, file_name=file_name, device="cpu").score_array(pairs)
    return np.array([np.corrcoef(x, y)[0, 1]])
