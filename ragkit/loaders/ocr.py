"""OcrEngine: text out of an image with RapidOCR's PP-OCR models on onnxruntime (the ``ocr`` extra).

The models (text detection, direction, recognition: about 30 MB) ship inside the
``rapidocr`` wheel; the engine passes their paths explicitly, so nothing is ever
fetched: a missing model file is a :class:`~ragkit.errors.ConfigurationError`,
not a download. No PyTorch.

An engine loads its models on the first :meth:`OcrEngine.read` (about a second),
then reads a page in about 1-4 s on one core. :func:`shared_engine` keeps one
engine per process and setting, made on first use: a loader that OCRs holds only
its options, so it can be pickled to a worker process (a Ray actor, a process
pool), which builds its own engine there. Pickling an ``OcrEngine`` drops its
sessions; they are made again on the other side.

Thread safety: :meth:`OcrEngine.read` may be called from several threads; calls
on one engine run one at a time (a lock), each using ``intra_op_num_threads``
onnxruntime threads (``None``: ``RAGKIT_ONNX_THREADS`` when set, see
:func:`~ragkit.embeddings.onnx_runtime.default_threads`, else onnxruntime's default,
one per core). For more
throughput, use processes, one engine each, with ``intra_op_num_threads=1``.

**Switching OCR off for a whole process.** ``RAGKIT_OCR=never`` (:data:`OCR_VARIABLE`) turns OCR off
everywhere, whatever a loader was given: images
(:class:`~ragkit.loaders.ImageLoader`, archive members, e-mail attachments) and PDF pages
without a text layer are then not read, each with a reason on ``loader.errors`` that says
OCR is off, and no model is loaded. ``auto`` or unset: OCR where a loader would use it.
:func:`ocr_switched_off` reads the variable at each call.

Example:
    >>> engine = OcrEngine(intra_op_num_threads=1)
    >>> engine.intra_op_num_threads, engine.loaded
    (1, False)
    >>> join_lines([OcrLine("world", ((60, 10), (90, 10), (90, 20), (60, 20)), 0.9),
    ...             OcrLine("hello", ((10, 12), (50, 12), (50, 22), (10, 22)), 0.8),
    ...             OcrLine("next", ((10, 40), (40, 40), (40, 50), (10, 50)), 0.9)])
    'hello world\\nnext'
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.embeddings.onnx_runtime import default_threads
from ragkit.errors import ConfigurationError
from ragkit.loaders._modes import check_at_least

MODEL_FILES = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}
"""The model files ragkit uses, inside the installed ``rapidocr`` package's ``models`` folder."""

INSTALL_HINT = "pip install 'ragkit[ocr]'"

Point = tuple[float, float]


@dataclass(frozen=True)
class OcrLine:
    """One line of text found in an image: its text, its box (four corners), its confidence."""

    text: str
    box: tuple[Point, Point, Point, Point]
    confidence: float

    @property
    def top(self) -> float:
        return min(p[1] for p in self.box)

    @property
    def bottom(self) -> float:
        return max(p[1] for p in self.box)

    @property
    def left(self) -> float:
        return min(p[0] for p in self.box)


def join_lines(lines: list[OcrLine]) -> str:
    """The text of ``lines`` in reading order: rows top to bottom, boxes in a row left to right.

    Two boxes are on one row when they overlap vertically by more than half the
    smaller one's height; a row's boxes are joined by a space, rows by a newline.
    """
    rows: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda x: (x.top, x.left)):
        if rows:
            row = rows[-1]
            top = max(x.top for x in row)
            bottom = min(x.bottom for x in row)
            height = min(line.bottom - line.top, bottom - top)
            overlap = min(bottom, line.bottom) - max(top, line.top)
            if height > 0 and overlap > height / 2:
                row.append(line)
                continue
        rows.append([line])
    return "\n".join(" ".join(x.text for x in sorted(row, key=lambda x: x.left)) for row in rows)


def mean_confidence(lines: list[OcrLine]) -> float | None:
    """The mean confidence of ``lines`` (``None`` when there are none), rounded to 4 places."""
    if not lines:
        return None
    return round(sum(x.confidence for x in lines) / len(lines), 4)


OCR_VARIABLE = "RAGKIT_OCR"
"""The environment variable that switches OCR off for the whole process (``never``)."""

OCR_OFF = f"OCR is off ({OCR_VARIABLE}=never; unset it to read it by OCR)"
"""The reason given for an image or a page not read because OCR is switched off."""

_ON = frozenset({"", "auto"})


def ocr_switched_off() -> bool:
    """Whether ``RAGKIT_OCR`` switches OCR off in this process (``never``, in any case).

    Raises:
        ConfigurationError: the variable holds another value (``auto`` and unset leave OCR on).

    Example:
        >>> import os
        >>> os.environ["RAGKIT_OCR"] = "never"; ocr_switched_off()
        True
        >>> del os.environ["RAGKIT_OCR"]; ocr_switched_off()
        False
    """
    value = os.environ.get(OCR_VARIABLE, "").strip().lower()
    if value == "never":
        return True
    if value in _ON:
        return False
    raise ConfigurationError(
        f"{OCR_VARIABLE}={os.environ[OCR_VARIABLE]!r}: expected 'never' (OCR off) or 'auto'"
    )


def ocr_available() -> bool:
    """Whether the ``ocr`` extra (rapidocr, onnxruntime) is installed (nothing is imported)."""
    import importlib.util

    for module in ("rapidocr", "onnxruntime"):
        if module in sys.modules:
            if sys.modules[module] is None:  # Python's mark for a module that must not import
                return False
        elif importlib.util.find_spec(module) is None:
            return False
    return True


def model_dir() -> Path:
    """The folder of the PP-OCR models inside the installed ``rapidocr`` wheel."""
    import importlib.util

    spec = importlib.util.find_spec("rapidocr") if ocr_available() else None
    if spec is None or spec.origin is None:
        raise ConfigurationError(f"OCR needs rapidocr and onnxruntime: {INSTALL_HINT}")
    return Path(spec.origin).parent / "models"


# Images thinner than this (pixels) hold no readable line of text; the detector would scale
# such an image up until its short side is DETECT_MIN_SIDE px (a 400 x 1 spacer GIF took 40 s
# at rapidocr's default of 736).
MIN_TEXT_SIDE = 6

# The detector scales an image up until its short side is at least this many pixels (never
# down). rapidocr's default, 736, made a 1000 x 200 strip of 36 px text 3680 x 736 (1.8-2.5 s
# to read, against 0.4 s here, same text); PaddleOCR's own default is 64, which lost the
# small title text of a 150 x 214 poster that 320 reads (docs/benchmarks.md, "OCR of small
# images").
DETECT_MIN_SIDE = 320


class OcrEngine:
    """Reads text lines out of images; the models load on the first :meth:`read`."""

    def __init__(self, intra_op_num_threads: int | None = None, min_confidence: float = 0.6):
        check_at_least("intra_op_num_threads", intra_op_num_threads, 1)
        if not 0.0 <= min_confidence <= 1.0:
            raise ConfigurationError(f"min_confidence must be in [0, 1], got {min_confidence}")
        self.intra_op_num_threads = intra_op_num_threads
        self.min_confidence = min_confidence
        self._ocr: Any = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the models are loaded in this process."""
        return self._ocr is not None

    def __getstate__(self) -> dict[str, Any]:
        return {
            "intra_op_num_threads": self.intra_op_num_threads,
            "min_confidence": self.min_confidence,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def _engine(self) -> Any:
        if self._ocr is None:
            folder = model_dir()
            paths = {stage: folder / name for stage, name in MODEL_FILES.items()}
            missing = [str(p) for p in paths.values() if not p.is_file()]
            if missing:
                raise ConfigurationError(
                    f"the OCR models are not in the installed rapidocr package ({', '.join(missing)}); "
                    f"ragkit never downloads models: reinstall with {INSTALL_HINT}"
                )
            from rapidocr import RapidOCR

            params: dict[str, Any] = {
                "Global.log_level": "error",
                "Det.limit_type": "min",
                "Det.limit_side_len": DETECT_MIN_SIDE,
            }
            for stage, path in paths.items():
                params[f"{stage}.model_path"] = str(path)
            threads = self.intra_op_num_threads or default_threads()
            if threads is not None:
                params["EngineConfig.onnxruntime.intra_op_num_threads"] = threads
                params["EngineConfig.onnxruntime.inter_op_num_threads"] = 1
            self._ocr = RapidOCR(params=params)
        return self._ocr

    def read(self, image: Any) -> list[OcrLine]:
        """The text lines in ``image`` (a PIL image, or an RGB ``uint8`` array ``H x W x 3``).

        Lines under ``min_confidence`` are dropped, and so are lines without a letter or digit
        (the model reads ``***`` into the texture of a photo); the order is the model's (use
        :func:`join_lines` for reading order).
        """
        import numpy as np

        if hasattr(image, "convert"):  # a PIL image
            image = np.asarray(image.convert("RGB"))
        array = np.ascontiguousarray(np.asarray(image, dtype=np.uint8)[:, :, ::-1])  # to BGR
        if min(array.shape[:2]) < MIN_TEXT_SIDE:  # a spacer or rule: no line of text fits
            return []
        with self._lock:
            result = self._engine()(array)
        texts = getattr(result, "txts", None)
        if not texts:
            return []
        lines = []
        for text, box, score in zip(texts, result.boxes, result.scores):
            if float(score) < self.min_confidence or not any(c.isalnum() for c in str(text)):
                continue
            corners = tuple((float(x), float(y)) for x, y in box)
            lines.append(OcrLine(str(text), corners, float(score)))  # type: ignore[arg-type]
        return lines

    def read_text(self, image: Any) -> tuple[str, float | None]:
        """The text of ``image`` in reading order, and the mean confidence of its lines."""
        lines = self.read(image)
        return join_lines(lines), mean_confidence(lines)


_ENGINES: dict[tuple[int, int | None], OcrEngine] = {}
_ENGINES_LOCK = threading.Lock()


def shared_engine(intra_op_num_threads: int | None = None) -> OcrEngine:
    """This process's engine for ``intra_op_num_threads``, made on first use (models load lazily)."""
    key = (os.getpid(), intra_op_num_threads)  # a forked child makes its own
    with _ENGINES_LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = OcrEngine(intra_op_num_threads)
        return engine
