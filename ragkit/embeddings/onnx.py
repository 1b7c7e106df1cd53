"""OnnxEmbeddings: any sentence-transformers model exported to ONNX, on onnxruntime, no PyTorch.

Point it at a model directory (``model.onnx`` or ``onnx/model*.onnx`` beside
``tokenizer.json``, ``config.json``, ``modules.json``, ``1_Pooling/config.json``; see
:mod:`ragkit.embeddings.model_dir`) or at a repository name, fetched once into the
Hugging Face cache (:mod:`ragkit.embeddings.hub`, the ``hub`` extra). The pooling
(mean, CLS, last token, ...), normalisation, maximum length and query/document
prompts come from the model's own files; each can be set explicitly instead:

- e5: ``query_prompt="query: ", document_prompt="passage: "``;
- bge (English v1.5): ``query_prompt="Represent this sentence for searching relevant passages: "``;
- nomic-embed-text: ``search_query: `` / ``search_document: `` (in its config already).

Texts are sorted by length and run in batches padded only to their longest member
(as :class:`~ragkit.embeddings.LocalEmbeddings`, which is this class on the bundled
MiniLM). Texts over the maximum length are truncated and counted in a
:class:`~ragkit.embeddings.TruncationWarning`. ``model_id`` holds the hash of the
``.onnx`` file and of every setting that changes the vectors, so indexes and caches
never mix two models. ``device=`` / ``providers=`` choose where it runs
(:mod:`ragkit.embeddings.onnx_runtime`): CUDA when ``onnxruntime-gpu`` finds a GPU,
else the CPU.

Example:
    >>> # emb = OnnxEmbeddings("models/bge-small-en-v1.5",
    >>> #                      query_prompt="Represent this sentence for searching relevant passages: ")
    >>> # emb = OnnxEmbeddings("intfloat/e5-small-v2", query_prompt="query: ", document_prompt="passage: ")
    >>> # emb.embed_query("what is rust?"), emb.model_id, emb.execution_providers
    >>> OnnxEmbeddings.__mro__[1].__name__
    'Embeddings'
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.embeddings.base import Embeddings
from ragkit.embeddings.model_dir import file_sha256, model_sha256
from ragkit.embeddings.onnx_runtime import OnnxModel, Provider, token_feeds
from ragkit.embeddings.pooling import normalize, pool, pooling_modes
from ragkit.errors import ConfigurationError

_TOKEN_OUTPUTS = ("last_hidden_state", "token_embeddings")
_KNOWN_INPUTS = {"input_ids", "attention_mask", "token_type_ids", "position_ids"}


@dataclass(frozen=True)
class EncoderSettings:
    """What an OnnxEmbeddings runs: its graph, tokenizer, pooling, prompts and lengths."""

    model_file: Path | None  # None: LocalEmbeddings' bundled model, found on first use
    tokenizer: Any
    tokenizer_file: Path | None
    pad: int
    pooling: tuple[str, ...]
    normalize: bool
    max_seq_length: int
    lower: bool
    query_prompt: str
    document_prompt: str
    include_prompt: bool
    dimension: int | None  # None: known once the model ran


class OnnxEmbeddings(Embeddings, OnnxModel):
    """Sentence embeddings from an ONNX model directory or repository (see the module docstring).

    Args:
        model_name_or_path: a local model directory, or a repository name (``owner/name``,
            optionally ``@revision``) fetched with ``huggingface_hub`` into its cache.
        file_name: which ``.onnx`` file of the directory to run (e.g. ``"onnx/model_quantized.onnx"``).
        revision: the repository revision (branch, tag or commit) to fetch.
        download: fetch a repository missing from the cache (``False``: the cache only).
        cache_folder: the Hugging Face cache to use (default: ``HF_HUB_CACHE`` / ``HF_HOME``).
        pooling: override the pooling: ``"mean"``, ``"cls"``, ``"lasttoken"``, ``"max"``,
            ``"mean_sqrt_len_tokens"``, ``"weightedmean"`` (or a sequence of them, concatenated).
        normalize: override the normalisation (L2, unit vectors).
        max_seq_length: truncate at this many tokens (default: the model's own setting).
        query_prompt: text put before each query (default: the ``query`` prompt of
            ``config_sentence_transformers.json``).
        document_prompt: text put before each document (default: its ``document``,
            ``passage`` or ``corpus`` prompt).
        batch_size: texts per model call (sorted by length first).
        threads: onnxruntime intra-op threads (``None``: one per core).
        providers: onnxruntime execution providers, passed through (default: from ``device``).
        device: ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``
            (see :mod:`ragkit.embeddings.onnx_runtime`).
    """

    def __init__(
        self,
        model_name_or_path: str | os.PathLike[str],
        *,
        file_name: str | None = None,
        revision: str | None = None,
        download: bool = True,
        cache_folder: str | None = None,
        pooling: str | Sequence[str] | None = None,
        normalize: bool | None = None,
        max_seq_length: int | None = None,
        query_prompt: str | None = None,
        document_prompt: str | None = None,
        batch_size: int = 32,
        threads: int | None = None,
        providers: Sequence[Provider] | None = None,
        device: str = "auto",
    ) -> None:
        from ragkit.embeddings.model_dir import (
            ModelSource,
            model_files,
            model_length,
            read_layout,
        )

        self._init_runtime(batch_size, threads, providers, device)
        for name, value in (("query_prompt", query_prompt), ("document_prompt", document_prompt)):
            if value is not None and not isinstance(value, str):
                raise ConfigurationError(f"{name} must be a string, got {type(value).__name__}")
        root = ModelSource(
            model_name_or_path, file_name, revision, download, cache_folder
        ).resolve()
        layout = read_layout(root, pooling=pooling is None)
        length = model_length(root, max_seq_length, layout.max_seq_length, "OnnxEmbeddings")
        self.root: Path | None = root
        self.source = str(model_name_or_path)
        self.revision: str | None = revision
        self._explicit = any(
            v is not None
            for v in (file_name, pooling, normalize, max_seq_length, query_prompt, document_prompt)
        )
        files = model_files(root, file_name, length)
        self._configure(
            EncoderSettings(
                model_file=files.model_file,
                tokenizer=files.tokenizer,
                tokenizer_file=files.tokenizer_file,
                pad=files.pad,
                pooling=layout.pooling if pooling is None else pooling_modes(pooling),
                normalize=layout.normalize if normalize is None else bool(normalize),
                max_seq_length=length,
                lower=layout.do_lower_case,
                query_prompt=layout.query_prompt if query_prompt is None else query_prompt,
                document_prompt=layout.document_prompt
                if document_prompt is None
                else document_prompt,
                include_prompt=layout.include_prompt,
                dimension=layout.dimension if pooling is None else None,
            )
        )

    def _configure(self, settings: EncoderSettings) -> None:
        """Set every field (shared with LocalEmbeddings, which is one such configuration)."""
        self.model_file = settings.model_file
        self._tokenizer = settings.tokenizer
        self.tokenizer_file = settings.tokenizer_file
        self._pad = settings.pad
        self.pooling = settings.pooling
        self.normalize = settings.normalize
        self.max_seq_length = settings.max_seq_length
        self.do_lower_case = settings.lower
        self.query_prompt = settings.query_prompt
        self.document_prompt = settings.document_prompt
        self.include_prompt = settings.include_prompt
        self._dimension = settings.dimension
        self._model_id: str | None = None
        self._prompt_tokens: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.source!r}, model_id={self.model_id!r})"

    def __getstate__(self) -> dict[str, Any]:
        # a copy sent to another process (a Ray worker) carries the settings, not the session
        return {k: v for k, v in self.__dict__.items() if k not in ("_session", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._session = None
        self._lock = threading.Lock()

    # -- identity -----------------------------------------------------------------------
    @property
    def spec(self) -> str | None:
        """``onnx:<directory or repository>``: how an index records this model (``None`` when
        explicit settings, or a subclass, make it not re-creatable from the name alone: a
        subclass may override ``embed_documents``/``embed_query``, which the name would lose)."""
        if self._explicit or type(self) is not OnnxEmbeddings:
            return None
        from ragkit.embeddings.hub import looks_like_repo_id, split_revision

        source = self.source
        repo, revision = split_revision(source)
        if not Path(source).expanduser().is_dir() and looks_like_repo_id(repo):
            revision = self.revision or revision
            return f"onnx:{repo}" + (f"@{revision}" if revision else "")
        return f"onnx:{self.root}"

    @property
    def model_id(self) -> str:
        """``onnx-<file hash>.<pooling>.seq<N>.<settings hash>``."""
        if self._model_id is None:
            assert self.model_file is not None
            settings = {
                "tokenizer": file_sha256(self.tokenizer_file) if self.tokenizer_file else None,
                "pooling": list(self.pooling),
                "normalize": self.normalize,
                "lower": self.do_lower_case,
                "prompts": [self.query_prompt, self.document_prompt],
                "include_prompt": self.include_prompt,
            }
            digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()
            self._model_id = (
                f"onnx-{model_sha256(self.model_file)[:16]}.{'+'.join(self.pooling)}"
                f".seq{self.max_seq_length}.{digest[:8]}"
            )
        return self._model_id

    @property
    def dimension(self) -> int | None:
        if self._dimension is None:
            self._ensure_session()
            if self._dimension is None:
                self._dimension = int(self.embed_documents_array(["dimension"]).shape[1])
        return self._dimension

    # -- the session (made on first use: ragkit.embeddings.onnx_runtime.OnnxModel) -------------
    def _resolve_model(self) -> Path:
        assert self.model_file is not None
        return self.model_file

    def _check_signature(self, session: Any, path: Path) -> None:
        inputs = {i.name for i in session.get_inputs()}
        outputs = {o.name: o for o in session.get_outputs()}
        shapes = {name: list(o.shape) for name, o in outputs.items()}
        unknown = sorted(inputs - _KNOWN_INPUTS)
        if not {"input_ids", "attention_mask"} <= inputs or unknown:
            raise ConfigurationError(
                f"{str(path)!r} has inputs {sorted(inputs)}; {type(self).__name__} feeds "
                "input_ids and attention_mask (token_type_ids and position_ids when present) "
                "and nothing else"
            )
        self._feeds = inputs
        token = [n for n in _TOKEN_OUTPUTS if n in outputs] or [
            n for n, s in shapes.items() if len(s) == 3
        ]
        if token and len(shapes[token[0]]) == 3:
            self._output, self._pooled = token[0], False
        elif "sentence_embedding" in outputs and len(shapes["sentence_embedding"]) == 2:
            self._output, self._pooled = "sentence_embedding", True
        else:
            raise ConfigurationError(
                f"{str(path)!r} has outputs {shapes}; {type(self).__name__} needs token vectors "
                "(last_hidden_state or token_embeddings, shape [batch, tokens, dim]) or a "
                "sentence_embedding of shape [batch, dim]. Is this an embedding model?"
            )
        width = shapes[self._output][-1]
        self.output_width = width if isinstance(width, int) else None
        if self.output_width is not None:
            self._dimension = self.output_width * (1 if self._pooled else len(self.pooling))
        self._checked_path = path

    # -- tokens ---------------------------------------------------------------------------
    def tokenize(self, texts: list[str]) -> list[list[int]]:
        """Token ids per text (the model's special tokens included, truncated at ``max_seq_length``)."""
        from ragkit.embeddings.tokens import encode

        if self.do_lower_case:
            texts = [t.lower() if isinstance(t, str) else t for t in texts]
        rows = encode(
            self._tokenizer, texts, max_length=self.max_seq_length, owner=type(self).__name__
        )
        return [e.ids for e in rows]

    def _prompt_length(self, prompt: str) -> int:
        """Tokens of ``prompt`` at the start of a text (its special start token included)."""
        if prompt not in self._prompt_tokens:
            ids = self._tokenizer.encode(prompt.lower() if self.do_lower_case else prompt).ids
            self._prompt_tokens[prompt] = max(len(ids) - 1, 0)
        return self._prompt_tokens[prompt]

    # -- embedding --------------------------------------------------------------------------
    def run_batch(self, ids: list[list[int]], skip: int = 0) -> np.ndarray:
        """Embed one batch of token-id lists (padded here to the longest): ``(len(ids), dim)``.

        ``skip`` leaves that many leading tokens out of the pooling (a prompt the model's
        pooling config excludes).
        """
        session = self._ensure_session()
        feeds = token_feeds(ids, self._pad, self._feeds)
        mask = feeds["attention_mask"]
        longest = mask.shape[1]
        out = session.run([self._output], feeds)[0]
        expected = 2 if self._pooled else 3
        if out.ndim != expected or out.shape[0] != len(ids):
            raise ConfigurationError(
                f"{str(self._checked_path)!r} returned {self._output} of shape {out.shape} for a "
                f"batch of {len(ids)} texts of {longest} tokens; expected "
                + ("[batch, dim]" if self._pooled else "[batch, tokens, dim]")
            )
        if self._pooled:
            vectors = np.asarray(out, dtype=np.float32)
        else:
            if skip:
                mask = mask.copy()
                mask[:, :skip] = 0
            vectors = pool(np.asarray(out, dtype=np.float32), mask, self.pooling)
        return normalize(vectors) if self.normalize else vectors

    def _embed(self, texts: list[str], prompt: str) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension or 0), dtype=np.float32)
        if prompt:
            texts = [prompt + t if isinstance(t, str) else t for t in texts]
        ids = self.tokenize(texts)
        skip = self._prompt_length(prompt) if prompt and not self.include_prompt else 0
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
        out: np.ndarray | None = None
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors = self.run_batch([ids[i] for i in batch], skip)
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
                self._dimension = vectors.shape[1]
            out[batch] = vectors
        assert out is not None
        return out

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts`` (with the document prompt) into a float32 ``(n, dim)`` matrix, in order."""
        return self._embed(texts, self.document_prompt)

    def embed_queries_array(self, texts: list[str]) -> np.ndarray:
        """Embed queries (with the query prompt) into a float32 ``(n, dim)`` matrix, in one pass."""
        return self._embed(texts, self.query_prompt)

    def embed_query_array(self, text: str) -> np.ndarray:
        return self._embed([text], self.query_prompt)[0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_query_array(text).tolist()
