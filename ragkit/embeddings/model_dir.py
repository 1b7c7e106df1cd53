"""An ONNX model directory in sentence-transformers' layout, read without sentence-transformers.

What ragkit reads (every file but the first two is optional):

- the graph: ``model.onnx``, else ``onnx/model.onnx``, else the only ``onnx/model*.onnx``
  (pick another with ``file_name=``, e.g. ``"onnx/model_qint8_avx512.onnx"``);
- ``tokenizer.json`` (the ``tokenizers`` file; its own truncation and padding are replaced
  by the model's maximum length and per-batch padding);
- ``modules.json``: which modules run after the transformer (``Pooling``, ``Normalize``);
- ``1_Pooling/config.json`` (or the path ``modules.json`` names): the pooling mode;
- ``sentence_bert_config.json``: ``max_seq_length``, ``do_lower_case``;
- ``config_sentence_transformers.json``: ``prompts`` and ``default_prompt_name``;
- ``tokenizer_config.json`` and ``config.json``: the maximum length when nothing above says.

Without ``modules.json`` the directory is a plain transformer, pooled by mean and not
normalised, as sentence-transformers treats it.

Example:
    >>> find_pooling({"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False})
    ('cls',)
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.embeddings.pooling import MODES
from ragkit.errors import ConfigurationError

# sentence-transformers' pooling keys, in the order it concatenates them.
_POOLING_KEYS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}
_ALIASES = {
    "mean_tokens": "mean",
    "cls_token": "cls",
    "max_tokens": "max",
    "last_token": "lasttoken",
}
_ROBERTA_LIKE = {"roberta", "xlm-roberta", "camembert", "longformer", "mpnet"}


def read_json(path: Path) -> Any:
    """The JSON in ``path``, ``None`` when the file does not exist; errors name the file."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ConfigurationError(f"{path} cannot be read as JSON: {err}") from None


def _object(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path} must hold a JSON object, got {type(data).__name__}")
    return data


def resolve_dir(
    name_or_path: str | os.PathLike[str],
    *,
    revision: str | None = None,
    file_name: str | None = None,
    download: bool = True,
    cache_folder: str | None = None,
) -> Path:
    """A local model directory: ``name_or_path`` itself, or a repository fetched by name."""
    from ragkit.embeddings.hub import fetch, looks_like_repo_id, split_revision

    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return path.resolve()
    if path.exists():
        raise ConfigurationError(
            f"{str(path)!r} is a file; pass the model's directory (the one holding "
            "tokenizer.json), and file_name= to pick its .onnx file"
        )
    text = str(name_or_path)
    repo, rev = split_revision(text)
    if looks_like_repo_id(repo) and isinstance(name_or_path, str):
        return fetch(
            repo,
            revision=revision or rev,
            file_name=file_name,
            download=download,
            cache_folder=cache_folder,
        )
    raise ConfigurationError(
        f"{text!r} is not a model directory (no such folder) nor a repository name "
        "(owner/name); check the path"
    )


def find_onnx(root: Path, file_name: str | None = None) -> Path:
    """The ``.onnx`` graph of ``root`` (see the module docstring for the order)."""
    if file_name:
        path = root / file_name
        if not path.is_file():
            raise ConfigurationError(f"{path} (file_name={file_name!r}) does not exist")
        return path
    for candidate in (root / "model.onnx", root / "onnx" / "model.onnx"):
        if candidate.is_file():
            return candidate
    found = sorted((root / "onnx").glob("model*.onnx"))
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(str(p.relative_to(root)) for p in found)
        raise ConfigurationError(
            f"{root} holds several ONNX graphs ({names}) and no model.onnx; choose one with "
            f"file_name=, e.g. file_name={str(found[0].relative_to(root))!r}"
        )
    raise ConfigurationError(
        f"{root} holds no ONNX graph: expected {root / 'model.onnx'} or {root / 'onnx'}/"
        "model*.onnx. Export the model to ONNX first (e.g. optimum-cli export onnx, or "
        "sentence-transformers' backend='onnx')"
    )


def find_pooling(config: dict[str, Any], where: str = "1_Pooling/config.json") -> tuple[str, ...]:
    """The pooling modes a ``1_Pooling/config.json`` asks for (errors name ``where``)."""
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        name = _ALIASES.get(mode, mode)
        if name not in MODES:
            raise ConfigurationError(
                f"{where}: unknown pooling mode {mode!r}; ragkit knows {', '.join(MODES)}"
            )
        return (name,)
    unknown = sorted(
        k
        for k, v in config.items()
        if k.startswith("pooling_mode_") and k not in _POOLING_KEYS and v
    )
    if unknown:
        raise ConfigurationError(
            f"{where}: unknown pooling mode {unknown[0]!r}; ragkit knows {', '.join(_POOLING_KEYS)}"
        )
    modes = tuple(name for key, name in _POOLING_KEYS.items() if config.get(key))
    if not modes:
        raise ConfigurationError(
            f"{where} sets no pooling mode (none of {', '.join(_POOLING_KEYS)} is true); "
            "set one, or pass pooling= (e.g. 'mean' or 'cls')"
        )
    return modes


@dataclass(frozen=True)
class EmbeddingLayout:
    """What a directory says about turning token vectors into one vector per text."""

    pooling: tuple[str, ...] = ("mean",)
    normalize: bool = False
    max_seq_length: int | None = None
    do_lower_case: bool = False
    query_prompt: str = ""
    document_prompt: str = ""
    include_prompt: bool = True
    dimension: int | None = None


def _module_kind(entry: Any, path: Path) -> tuple[str, str]:
    if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
        raise ConfigurationError(f"{path}: each module must be an object with a 'type'")
    return entry["type"].rsplit(".", 1)[-1], str(entry.get("path", ""))


def _prompts(root: Path) -> tuple[str, str]:
    path = root / "config_sentence_transformers.json"
    config = _object(path)
    prompts = config.get("prompts") or {}
    if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
        raise ConfigurationError(f"{path}: 'prompts' must map names to strings")
    default = config.get("default_prompt_name")
    fallback = prompts.get(default, "") if isinstance(default, str) else ""
    query = str(prompts.get("query", fallback))
    document = next(
        (str(prompts[n]) for n in ("document", "passage", "corpus") if n in prompts), fallback
    )
    return query, str(document)


def read_layout(root: Path, *, pooling: bool = True) -> EmbeddingLayout:
    """The pooling, normalisation, length and prompts of the embedding model in ``root``.

    ``pooling=False`` skips the pooling config (the caller sets the pooling itself).
    """
    modules_path = root / "modules.json"
    modules = read_json(modules_path)
    pooling_dir: Path | None = root / "1_Pooling"
    normalize = False
    if modules is not None:
        if not isinstance(modules, list):
            raise ConfigurationError(f"{modules_path} must hold a JSON list of modules")
        pooling_dir = None
        for entry in modules:
            kind, sub = _module_kind(entry, modules_path)
            if kind == "Pooling":
                pooling_dir = root / sub
            elif kind == "Normalize":
                normalize = True
            elif kind == "Dense":
                raise ConfigurationError(
                    f"{modules_path} lists a Dense module ({sub}), which runs outside the ONNX "
                    "graph; ragkit runs the transformer, pooling and normalisation only. Export "
                    "the model with the Dense layer inside the graph, or choose another model"
                )
            elif kind not in ("Transformer", "MLMTransformer", "StaticEmbedding"):
                raise ConfigurationError(
                    f"{modules_path} lists a {entry['type']} module, which ragkit cannot run; "
                    "it runs Transformer, Pooling and Normalize modules"
                )
    pool_config: dict[str, Any] = {}
    modes: tuple[str, ...] = ("mean",)
    if not pooling:
        pass
    elif pooling_dir is not None and (pooling_dir / "config.json").is_file():
        pool_config = _object(pooling_dir / "config.json")
        modes = find_pooling(pool_config, str(pooling_dir / "config.json"))
    elif modules is not None and pooling_dir is None:
        raise ConfigurationError(
            f"{modules_path} lists no Pooling module; ragkit needs one to make one vector per "
            "text (or pass pooling=)"
        )
    bert = _object(root / "sentence_bert_config.json")
    length = bert.get("max_seq_length")
    query, document = _prompts(root)
    dim = pool_config.get("word_embedding_dimension")
    return EmbeddingLayout(
        pooling=modes,
        normalize=normalize,
        max_seq_length=length if isinstance(length, int) and length > 0 else None,
        do_lower_case=bool(bert.get("do_lower_case", False)),
        query_prompt=query,
        document_prompt=document,
        include_prompt=bool(pool_config.get("include_prompt", True)),
        dimension=dim * len(modes) if isinstance(dim, int) else None,
    )


def position_limit(root: Path) -> int | None:
    """How many tokens the model's position table holds (``config.json``), if it says."""
    config = _object(root / "config.json")
    limit = config.get("max_position_embeddings")
    if not isinstance(limit, int) or limit <= 0:
        return None
    return limit - 2 if config.get("model_type") in _ROBERTA_LIKE and limit > 2 else limit


def default_max_length(root: Path, from_layout: int | None = None) -> int:
    """The model's maximum input length: sentence-transformers' setting, the tokenizer's, the positions'."""
    if from_layout:
        return from_layout
    tokenizer = _object(root / "tokenizer_config.json").get("model_max_length")
    if isinstance(tokenizer, int) and 0 < tokenizer <= 100_000:
        return tokenizer
    return position_limit(root) or 512


def check_max_length(root: Path, value: Any, owner: str) -> int:
    """``value`` as a token count the model can take (at least 3, at most its positions)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 3:
        raise ConfigurationError(f"{owner}: max_seq_length must be an int >= 3, got {value!r}")
    limit = position_limit(root)
    if limit is not None and value > limit:
        raise ConfigurationError(
            f"{owner}: max_seq_length={value} is more than the model's {limit} positions "
            f"({root / 'config.json'} max_position_embeddings); use at most {limit}"
        )
    return value


_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """sha256 of a file (remembered per path, size and modification time in this process)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


def model_sha256(path: Path) -> str:
    """sha256 over an ``.onnx`` file and its external-weights files (``model.onnx_data`` ...)."""
    files = [path] + sorted(
        p
        for p in path.parent.glob(f"{path.name}*")
        if p != path and p.is_file() and p.suffix != ".onnx"
    )
    if len(files) == 1:
        return file_sha256(path)
    return hashlib.sha256("".join(file_sha256(p) for p in files).encode()).hexdigest()


@dataclass(frozen=True)
class ModelSource:
    """Where a model's files are: a directory, or a repository fetched into the Hugging Face cache.

    Example: ``ModelSource("intfloat/e5-small-v2", revision="main").resolve()``.
    """

    name_or_path: str | os.PathLike[str]
    file_name: str | None = None  # which ``.onnx`` file of the directory to run
    revision: str | None = None
    download: bool = True  # fetch a repository missing from the cache
    cache_folder: str | None = None

    def resolve(self) -> Path:
        """The local model directory (fetched first when it is a repository)."""
        return resolve_dir(
            self.name_or_path,
            revision=self.revision,
            file_name=self.file_name,
            download=self.download,
            cache_folder=self.cache_folder,
        )


@dataclass(frozen=True)
class ModelFiles:
    """A model directory's ONNX graph and its tokenizer, truncating at ``max_length`` tokens."""

    root: Path
    model_file: Path
    tokenizer: Any
    tokenizer_file: Path
    pad: int
    max_length: int


def model_length(root: Path, wanted: int | None, configured: int | None, owner: str) -> int:
    """The token limit: ``wanted`` when the model can take it, else the model's own
    (``configured`` by sentence-transformers, the tokenizer's, its positions')."""
    if wanted is None:
        return default_max_length(root, configured)
    return check_max_length(root, wanted, owner)


def model_files(root: Path, file_name: str | None, max_length: int) -> ModelFiles:
    """The ``.onnx`` file of ``root`` and its ``tokenizer.json``, loaded to truncate at ``max_length``."""
    from ragkit.embeddings.tokens import load_tokenizer, pad_id

    tokenizer_file = root / "tokenizer.json"
    tokenizer = load_tokenizer(tokenizer_file, max_length)
    return ModelFiles(
        root=root,
        model_file=find_onnx(root, file_name),
        tokenizer=tokenizer,
        tokenizer_file=tokenizer_file,
        pad=pad_id(tokenizer, tokenizer_file),
        max_length=max_length,
    )
