"""Model repositories by name: fetched with ``huggingface_hub`` into its cache, only when asked.

``OnnxEmbeddings("BAAI/bge-small-en-v1.5")`` (or ``ragkit models download REPO``) looks
in the Hugging Face cache first and reads nothing from the network when the files
are there. Only a model missing from the cache is downloaded, and only with
``download=True`` (the default: naming a repository is asking for it; an index
built with one re-creates it from the cache). ``HF_HUB_OFFLINE=1`` keeps
``huggingface_hub`` off the network whatever ragkit asks. Only the files an ONNX
model needs are fetched: the JSON configs, the tokenizer, the pooling config and
the chosen ``.onnx`` file (with its external weights, if any); never PyTorch or
safetensors weights.

Example:
    >>> looks_like_repo_id("BAAI/bge-small-en-v1.5"), looks_like_repo_id("./models/bge")
    (True, False)
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.errors import ConfigurationError

_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
CONFIG_PATTERNS = ["*.json", "*.txt", "1_Pooling/*"]
DEFAULT_ONNX_PATTERNS = ["model.onnx*", "onnx/model.onnx*"]


def looks_like_repo_id(name: str) -> bool:
    """``owner/name`` (the form of a Hugging Face model repository), not a path."""
    return bool(_REPO.fullmatch(name)) and ".." not in name


def split_revision(name: str) -> tuple[str, str | None]:
    """``"owner/name@rev"`` → ``("owner/name", "rev")``."""
    repo, sep, revision = name.partition("@")
    return repo, (revision or None) if sep else None


def _patterns(file_name: str | None) -> list[str]:
    if file_name:
        return [*CONFIG_PATTERNS, file_name, f"{file_name}_data", f"{file_name}.data"]
    return [*CONFIG_PATTERNS, *DEFAULT_ONNX_PATTERNS]


def _complete(folder: Path, file_name: str | None) -> bool:
    if not (folder / "tokenizer.json").is_file():
        return False
    if file_name:
        return (folder / file_name).is_file()
    return (folder / "model.onnx").is_file() or any(folder.glob("onnx/model*.onnx"))


def fetch(
    repo_id: str,
    *,
    revision: str | None = None,
    file_name: str | None = None,
    download: bool = True,
    cache_folder: str | None = None,
) -> Path:
    """The local folder of ``repo_id`` in the Hugging Face cache (downloading it if allowed)."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError as err:
        raise ConfigurationError(
            f"{repo_id!r} is a model repository name; fetching it needs huggingface_hub: "
            "pip install 'ragkit[hub]' (or pass the path of a local model directory)"
        ) from err
    patterns = _patterns(file_name)
    try:
        cached = Path(
            snapshot_download(
                repo_id,
                revision=revision,
                allow_patterns=patterns,
                local_files_only=True,
                cache_dir=cache_folder,
            )
        )
        if _complete(cached, file_name):
            return cached
    except Exception:  # huggingface_hub: not in the cache (LocalEntryNotFoundError & co)
        pass
    if not download:
        raise ConfigurationError(
            f"model {repo_id!r} is not in the Hugging Face cache and downloading was not asked "
            f"for; fetch it once with `ragkit models download {repo_id}` (or "
            "download=True), or pass a local model directory"
        )
    try:
        folder = Path(
            snapshot_download(
                repo_id, revision=revision, allow_patterns=patterns, cache_dir=cache_folder
            )
        )
    except Exception as err:  # network, authentication, unknown repository, offline mode
        raise ConfigurationError(
            f"cannot fetch model {repo_id!r}"
            + (f" at revision {revision!r}" if revision else "")
            + f" from the Hugging Face hub: {type(err).__name__}: {err}. Check the name, the "
            "network (HF_HUB_OFFLINE=1 forbids it) and HF_TOKEN for private models, or pass a "
            "local model directory"
        ) from None
    if not _complete(folder, file_name):
        raise ConfigurationError(
            f"model {repo_id!r} has no ONNX export ragkit can use in {folder} (it needs "
            "tokenizer.json and model.onnx or onnx/model*.onnx); pick the file with file_name=, "
            "or export the model to ONNX (optimum-cli export onnx) and pass the directory"
        )
    return folder
