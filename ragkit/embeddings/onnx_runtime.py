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

A session runs on ``threads=`` intra-op threads; without it, on the number in the
``RAGKIT_ONNX_THREADS`` environment variable (:func:`default_threads`), else on
onnxruntime's default of one per core. Set the variable to 1 when several processes share
the cores (pytest-xdist workers, a pool of indexing processes): each session using every
core makes them compete.

:class:`OnnxModel` holds what those classes share: the settings above, the session made on
first use (one per object, thread-safe), and the padded token inputs of a batch
(:func:`token_feeds`).

Example:
    >>> default_threads({"RAGKIT_ONNX_THREADS": "1"}), default_threads({})
    (1, None)
    >>> choose_providers(None, "cpu")
    ['CPUExecutionProvider']
    >>> runtime_info()["available_providers"][-1]
    'CPUExecutionProvider'
    >>> token_feeds([[101, 7, 102], [101, 102]], 0, {"input_ids"})["attention_mask"]
    array([[1, 1, 1],
           [1, 1, 0]])
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from ragkit.errors import ConfigurationError

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"
Provider = str | tuple[str, dict[str, Any]]
THREADS_VARIABLE = "RAGKIT_ONNX_THREADS"


def _ort() -> Any:
    try:
        import onnxruntime
    except ImportError as err:
        raise ConfigurationError(
            "ONNX models need onnxruntime: pip install 'ragkit[local]' "
            "(or onnxruntime-gpu for CUDA)"
        ) from err
    return onnxruntime


def default_threads(environ: Mapping[str, str] | None = None) -> int | None:
    """The intra-op threads of a session made without ``threads=``: the positive integer in
    ``RAGKIT_ONNX_THREADS`` (of ``environ``, default this process's), or None (onnxruntime's
    default, one per core) when it is unset or empty."""
    value = (os.environ if environ is None else environ).get(THREADS_VARIABLE, "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit()) or int(value) < 1:  # "²".isdigit() is True
        raise ConfigurationError(f"{THREADS_VARIABLE} must be a whole number >= 1, got {value!r}")
    return int(value)


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
    options.intra_op_num_threads = threads or default_threads() or 0
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


def check_positive(value: Any, name: str, *, none_ok: bool = False) -> None:
    """Refuse anything but a positive int (or ``None`` with ``none_ok``), naming ``name``."""
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        allowed = "a positive int or None" if none_ok else "a positive int"
        raise ConfigurationError(f"{name} must be {allowed}, got {value!r}")


class OnnxModel:
    """An ONNX model's session settings and its session, created on first use.

    A subclass calls :meth:`_init_runtime` in its constructor and defines
    :meth:`_resolve_model` (the ``.onnx`` file) and :meth:`_check_signature` (which refuses a
    model whose inputs or outputs it cannot use, naming the file).
    """

    batch_size: int
    providers: list[Provider] | None
    device: str
    threads: int | None
    _session: Any
    _lock: threading.Lock

    def _init_runtime(
        self,
        batch_size: int,
        threads: int | None,
        providers: Sequence[Provider] | None,
        device: str,
    ) -> None:
        """Check and record the batch size and where the session will run; a bad value or
        ``device`` fails now, not at first use."""
        check_positive(batch_size, "batch_size")
        check_positive(threads, "threads", none_ok=True)
        self.batch_size = batch_size
        self.providers = None if providers is None else list(providers)
        self.device = device
        self.threads = threads
        self._session = None
        self._lock = threading.Lock()
        choose_providers(self.providers, device)

    def _resolve_model(self) -> Path:
        raise NotImplementedError

    def _check_signature(self, session: Any, path: Path) -> None:
        raise NotImplementedError

    def _ensure_session(self) -> Any:
        if self._session is not None:
            return self._session
        with self._lock:
            if self._session is None:
                path = self._resolve_model()
                session = create_session(
                    path,
                    providers=self.providers,
                    device=self.device,
                    threads=self.threads,
                    owner=type(self).__name__,
                )
                self._check_signature(session, path)
                self._session = session
        return self._session

    @property
    def execution_providers(self) -> list[str]:
        """The providers the session runs on (``["CPUExecutionProvider"]`` on a machine without GPU)."""
        return list(self._ensure_session().get_providers())

    @property
    def execution_device(self) -> str:
        """``"cuda"`` or ``"cpu"``: where the session runs (what ``ragkit info`` reports)."""
        return device_of(self._ensure_session())


def token_feeds(
    rows: Sequence[Sequence[int]],
    pad: int,
    inputs: set[str] | frozenset[str],
    type_ids: Sequence[Sequence[int]] | None = None,
) -> dict[str, np.ndarray]:
    """A batch's model inputs, padded to its longest row: ``input_ids`` and ``attention_mask``,
    plus ``token_type_ids`` (``type_ids``, else zeros) and ``position_ids`` when ``inputs``
    (the session's input names) has them."""
    import numpy as np

    longest = max(len(row) for row in rows)
    ids = np.full((len(rows), longest), pad, dtype=np.int64)
    mask = np.zeros((len(rows), longest), dtype=np.int64)
    for j, row in enumerate(rows):
        ids[j, : len(row)] = row
        mask[j, : len(row)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in inputs:
        types = np.zeros_like(ids)
        for j, row in enumerate(type_ids or ()):
            types[j, : len(row)] = row
        feeds["token_type_ids"] = types
    if "position_ids" in inputs:
        feeds["position_ids"] = np.broadcast_to(
            np.arange(longest, dtype=np.int64), ids.shape
        ).copy()
    return feeds


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
        "threads": default_threads() or os.cpu_count(),
    }
