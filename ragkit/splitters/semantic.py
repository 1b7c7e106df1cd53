"""SemanticChunker: cut where the meaning of consecutive sentences changes most.

Same parameters and chunks as ``langchain_experimental``'s ``SemanticChunker``:
each sentence is embedded together with ``buffer_size`` neighbours on each
side, the cosine distance between consecutive windows is computed, and the
text is cut after every sentence whose distance exceeds a threshold
(``percentile`` of the distances, mean + k ``standard_deviation``\\s, mean + k
``interquartile`` ranges, a percentile of the ``gradient``, or the threshold
that gives ``number_of_chunks``). Works with any ragkit
:class:`~ragkit.embeddings.Embeddings`. ``add_start_index`` records where each
chunk's first sentence starts in the source (LangChain sums chunk lengths,
which drifts because sentences are re-joined with single spaces).

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> chunker = SemanticChunker(HashEmbeddings(size=64), breakpoint_threshold_amount=50)
    >>> chunker.split_text("Cats purr. Cats meow. Stocks fell. Markets slid.")
    ['Cats purr. Cats meow.', 'Stocks fell. Markets slid.']
"""

from __future__ import annotations

import re
from typing import Literal

from ragkit.embeddings.adapter import as_embeddings
from ragkit.embeddings.base import Embeddings
from ragkit.errors import ConfigurationError
from ragkit.splitters.base import TextSplitter

BreakpointThresholdType = Literal["percentile", "standard_deviation", "interquartile", "gradient"]
BREAKPOINT_DEFAULTS: dict[str, float] = {
    "percentile": 95,
    "standard_deviation": 3,
    "interquartile": 1.5,
    "gradient": 95,
}


class SemanticChunker(TextSplitter):
    """Group sentences into chunks at the largest jumps in embedding distance."""

    def __init__(
        self,
        embeddings: Embeddings,
        buffer_size: int = 1,
        add_start_index: bool = False,
        breakpoint_threshold_type: BreakpointThresholdType = "percentile",
        breakpoint_threshold_amount: float | None = None,
        number_of_chunks: int | None = None,
        sentence_split_regex: str = r"(?<=[.?!])\s+",
        min_chunk_size: int | None = None,
    ) -> None:
        super().__init__(chunk_size=1, chunk_overlap=0, add_start_index=add_start_index)
        if breakpoint_threshold_type not in BREAKPOINT_DEFAULTS:
            raise ConfigurationError(
                f"breakpoint_threshold_type must be one of {sorted(BREAKPOINT_DEFAULTS)}, "
                f"got {breakpoint_threshold_type!r}"
            )
        if number_of_chunks is not None and number_of_chunks < 1:
            raise ConfigurationError(f"number_of_chunks must be >= 1, got {number_of_chunks}")
        if buffer_size < 0:
            raise ConfigurationError(f"buffer_size must be >= 0, got {buffer_size}")
        self.embeddings = as_embeddings(embeddings, "SemanticChunker embeddings")
        self.buffer_size = buffer_size
        self.breakpoint_threshold_type = breakpoint_threshold_type
        self.breakpoint_threshold_amount = (
            BREAKPOINT_DEFAULTS[breakpoint_threshold_type]
            if breakpoint_threshold_amount is None
            else breakpoint_threshold_amount
        )
        self.number_of_chunks = number_of_chunks
        self.sentence_split_regex = sentence_split_regex
        self.min_chunk_size = min_chunk_size

    def split_text(self, text: str) -> list[str]:
        return [chunk for chunk, _ in self.split_text_with_starts(text)]

    def split_text_with_starts(self, text: str) -> list[tuple[str, int]]:
        sentences, starts = self._sentences(text)
        if len(sentences) == 1 or (
            self.breakpoint_threshold_type == "gradient" and len(sentences) == 2
        ):
            return list(zip(sentences, starts))
        distances = self._distances(sentences)
        if self.number_of_chunks is not None:
            threshold, values = self._threshold_from_clusters(distances), distances
        else:
            threshold, values = self._threshold(distances)
        out: list[tuple[str, int]] = []
        first = 0
        for index in [i for i, x in enumerate(values) if x > threshold]:
            chunk = " ".join(sentences[first : index + 1])
            if self.min_chunk_size is not None and len(chunk) < self.min_chunk_size:
                continue
            out.append((chunk, starts[first]))
            first = index + 1
        if first < len(sentences):
            out.append((" ".join(sentences[first:]), starts[first]))
        return out

    # -- steps ------------------------------------------------------------------------------
    def _sentences(self, text: str) -> tuple[list[str], list[int]]:
        pattern = re.compile(self.sentence_split_regex)
        if pattern.groups:  # re.split also returns the groups: keep its output, search the starts
            parts = pattern.split(text)
            found, pos = [], 0
            for part in parts:
                at = text.find(part, pos)
                found.append(max(at, 0))
                pos = max(at, pos)
            return parts, found
        sentences: list[str] = []
        starts: list[int] = []
        pos = 0
        for m in pattern.finditer(text):
            sentences.append(text[pos : m.start()])
            starts.append(pos)
            pos = m.end()
        sentences.append(text[pos:])
        starts.append(pos)
        return sentences, starts

    def _distances(self, sentences: list[str]) -> list[float]:
        import numpy as np

        b = self.buffer_size
        windows = [" ".join(sentences[max(0, i - b) : i + 1 + b]) for i in range(len(sentences))]
        vectors = np.asarray(self.embeddings.embed_documents(windows), dtype=np.float64)
        norms = np.linalg.norm(vectors, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            sims = np.einsum("ij,ij->i", vectors[:-1], vectors[1:]) / (norms[:-1] * norms[1:])
        sims[~np.isfinite(sims)] = 0.0
        return [float(x) for x in 1.0 - sims]

    def _threshold(self, distances: list[float]) -> tuple[float, list[float]]:
        import numpy as np

        kind, amount = self.breakpoint_threshold_type, self.breakpoint_threshold_amount
        if kind == "percentile":
            return float(np.percentile(distances, amount)), distances
        if kind == "standard_deviation":
            return float(np.mean(distances) + amount * np.std(distances)), distances
        if kind == "interquartile":
            q1, q3 = np.percentile(distances, [25, 75])
            return float(np.mean(distances) + amount * (q3 - q1)), distances
        gradient = [float(x) for x in np.gradient(distances, range(len(distances)))]
        return float(np.percentile(gradient, amount)), gradient

    def _threshold_from_clusters(self, distances: list[float]) -> float:
        import numpy as np

        assert self.number_of_chunks is not None
        x1, y1 = len(distances), 0.0
        x2, y2 = 1.0, 100.0
        x = max(min(self.number_of_chunks, x1), x2)
        y = y2 if x2 == x1 else y1 + ((y2 - y1) / (x2 - x1)) * (x - x1)
        return float(np.percentile(distances, min(max(y, 0), 100)))

    def __repr__(self) -> str:
        return f"SemanticChunker(embeddings={self.embeddings!r}, breakpoint_threshold_type={self.breakpoint_threshold_type!r})"
