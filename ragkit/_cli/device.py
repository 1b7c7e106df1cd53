"""Where an index's embedding model runs (``ragkit info``'s device line and JSON ``runtime``)."""

from __future__ import annotations

from typing import Any


def runtime(embeddings: Any) -> dict[str, Any]:
    """Where ``embeddings`` runs: its providers and device, and what onnxruntime offers."""
    from ragkit.errors import ConfigurationError

    out: dict[str, Any] = {"device": None, "providers": []}
    try:
        from ragkit.embeddings.onnx_runtime import runtime_info

        out.update(runtime_info())
    except ConfigurationError:  # no onnxruntime: a model that does not need it
        return out
    if hasattr(embeddings, "execution_providers"):
        out["providers"] = embeddings.execution_providers
        out["device"] = embeddings.execution_device
    return out


def device_text(info: dict[str, Any]) -> str:
    """The device line of ``ragkit info`` for what :func:`runtime` found."""
    if info.get("device") is None:
        return "none (the embedding model does not run here)"
    return (
        f"{info['device']} ({', '.join(info['providers'])}; onnxruntime "
        f"{info['onnxruntime']}, available: {', '.join(info['available_providers'])})"
    )
