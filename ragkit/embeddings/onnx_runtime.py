"""Where an ONNX model runs: execution providers, the device, and one session per model file.

Every ONNX model in ragkit (:class:`~ragkit.embeddings.OnnxEmbeddings`,
:class:`~ragkit.embeddings.LocalEmbeddings`, :class:`~ragkit.retrievers.OnnxCrossEncoder`)
takes ``device=`` and ``providers=``:

- ``device="auto"`` (the default): CUDA when ``onnxruntime-gpu`` is installed and a GPU
  answers, else the CPU. The session's own provider list says what was chosen
  (``model.execution_providers``, and ``ragkit info``).
- ``device="cpu"``, ``"cuda"`` or ``"cuda:N"``: that device, or a clear error when it is
  not available (a CUDA device needs ``onnxruntime-gpu`` and a GPU).
- ``providers=[...]``: onnxruntime's provider names (or ``(name, options)`` pairs), passed
  through as they are; each must be available in this onnxruntime build.

Example:
    >>> choose_providers(None, "cpu")
    ['CPUExecutionProvider']
    >>> runtime_info()["available_providers"][-1]
    'CPUExecutionProvider'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"
Provider = str | tuple[str, dict[str, Any]]


def _ort() -> Any:
    try:
        import onnxruntime
    except ImportError as err:
        raise ConfigurationError(
            "ONNX models need onnxruntime: pip install 'ragkit[local]' "
            "(or onnxruntime-gpu for CUDA)"
        ) from err
    return onnxruntime


def available_providers() -> list[str]:
    """The execution providers this onnxruntime build offers (CPU is always last)."""
    return list(_ort().get_available_providers())


def choose_providers(providers: Sequence[Provider] | None, device: str = "auto") -> list[Provider]:
    """The provider list for a session, from ``providers=`` or ``device=`` (see the module docstring)."""
    available = available_providers()
    if providers is not None:
        if isinstance(providers, str):
            raise ConfigurationError(
                f"providers must be a list of provider names, got the string {providers!r}; "
                f"e.g. providers=[{providers!r}]"
            )
        chosen = list(providers)
        if not chosen:
            raise ConfigurationError("providers is empty; leave it out to choose automatically")
        for item in chosen:
            name = item[0] if isinstance(item, tuple) else item
            if name not in available:
                raise ConfigurationError(
                    f"execution provider {name!r} is not available in this onnxruntime; "
                    f"available: {', '.join(available)}"
                )
        return chosen
    if not isinstance(device, str):
        raise ConfigurationError(
            f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}"
        )
    name, _, index = device.lower().partition(":")
    if name == "cpu" and not index:
        return [CPU]
    if name == "auto" and not index:
        return [CUDA, CPU] if CUDA in available else [CPU]
    if name == "cuda" and (not index or index.isdigit()):
        if CUDA not in available:
            raise ConfigurationError(
                f"device={device!r} needs onnxruntime-gpu (pip install onnxruntime-gpu) and a "
                f"CUDA GPU; this onnxruntime offers {', '.join(available)}. Use device='auto' "
                "to fall back to the CPU"
            )
        return [(CUDA, {"device_id": int(index or 0)}), CPU]
    raise ConfigurationError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")


def create_session(
    path: Path,
    *,
    providers: Sequence[Provider] | None = None,
    device: str = "auto",
    threads: int | None = None,
    owner: str = "model",
) -> Any:
    """An onnxruntime session for ``path`` on the chosen providers (errors name the file)."""
    ort = _ort()
    chosen = choose_providers(providers, device)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or 0
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(str(path), sess_options=options, providers=chosen)
    except Exception as err:  # onnxruntime raises its own exception types
        if providers is None and device.lower() == "auto" and chosen != [CPU]:
            # onnxruntime-gpu without a usable GPU: auto means "the CPU then".
            return create_session(path, device="cpu", threads=threads, owner=owner)
        raise ConfigurationError(f"{owner}: onnxruntime cannot load {str(path)!r}: {err}") from None
    wanted_gpu = any((p[0] if isinstance(p, tuple) else p) == CUDA for p in chosen)
    explicit_gpu = device.lower().startswith("cuda") and providers is None
    if wanted_gpu and explicit_gpu and CUDA not in session.get_providers():
        raise ConfigurationError(
            f"device={device!r}: onnxruntime-gpu is installed but no CUDA GPU could be used for "
            f"{str(path)!r} (driver or CUDA libraries missing?); use device='auto' or 'cpu'"
        )
    return session


def device_of(session: Any) -> str:
    """``"cuda"`` when the session runs on CUDA, else ``"cpu"`` (or the first provider's name)."""
    used = list(session.get_providers())
    if CUDA in used:
        return "cuda"
    return "cpu" if not used or used[0] == CPU else used[0]


def runtime_info() -> dict[str, Any]:
    """onnxruntime's version, build device and available providers (for ``ragkit info``)."""
    ort = _ort()
    return {
        "onnxruntime": ort.__version__,
        "build": ort.get_device(),
        "available_providers": list(ort.get_available_providers()),
        "auto": "cuda if a GPU answers, else cpu"
        if CUDA in ort.get_available_providers()
        else "cpu",
        "threads": os.cpu_count(),
    }
