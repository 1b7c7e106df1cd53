"""BM25Index: a sparse term-by-document matrix of precomputed BM25 weights (numpy only).

Every (term, document) weight is computed once at build time and stored in
compressed-sparse-column form (one column of postings per term: ``indptr``,
``doc_ids``, ``weights``). A query then only sums the columns of its terms
(``numpy.bincount``) and takes the top ``k`` (``numpy.argpartition``), so its
cost grows with the postings of the query terms, not with Python loops over
the corpus.

Methods (``method=``): ``"lucene"`` (default; idf ``ln(1 + (N - df + .5) / (df + .5))``),
``"robertson"`` (idf ``ln((N - df + .5) / (df + .5))``, floored at ``epsilon`` times the
mean idf, as rank-bm25's BM25Okapi does), ``"atire"`` (idf ``ln(N / df)``), ``"bm25l"`` and
``"bm25+"`` (with ``delta``).

Example:
    >>> index = BM25Index.build([["solar", "panel"], ["wind", "turbine"], ["solar", "wind"]])
    >>> ids, scores = index.top_k(["solar"], k=2)
    >>> sorted(ids.tolist())
    [0, 2]
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragkit.errors import ConfigurationError, IndexCorruptedError
from ragkit.retrievers._util import check_choice

METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
DEFAULT_DELTA = {"bm25l": 0.5, "bm25+": 1.0}
_MAY_BE_ZERO = ("robertson", "atire")  # idf can be <= 0 for very common terms


@dataclass(eq=False, repr=False)
class BM25Index:
    """Term → postings of BM25 weights. Build with :meth:`build`; query with :meth:`top_k`."""

    vocab: dict[str, int]  # term → its column
    indptr: np.ndarray  # column j holds postings indptr[j]..indptr[j + 1] - 1
    doc_ids: np.ndarray
    weights: np.ndarray
    num_docs: int
    params: dict[str, Any]  # the checked BM25 parameters (check_params)

    @staticmethod
    def check_params(
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        delta: float | None = None,
        epsilon: float = 0.25,
    ) -> dict[str, Any]:
        """Validate BM25 parameters and return them as a dict (``delta`` resolved per method)."""
        check_choice(method, METHODS, "bm25_params['method']")
        if not k1 >= 0:
            raise ConfigurationError(f"bm25_params['k1'] must be >= 0, got {k1!r}")
        if not 0 <= b <= 1:
            raise ConfigurationError(f"bm25_params['b'] must be between 0 and 1, got {b!r}")
        if delta is None:
            delta = DEFAULT_DELTA.get(method, 0.0)
        return {
            "k1": float(k1),
            "b": float(b),
            "method": method,
            "delta": float(delta),
            "epsilon": float(epsilon),
        }

    @classmethod
    def build(cls, corpus_tokens: Iterable[Sequence[str]], **bm25_params: Any) -> BM25Index:
        """Index tokenized documents (one list of terms per document, read once, in order)."""
        try:
            params = cls.check_params(**bm25_params)
        except TypeError as err:
            raise ConfigurationError(
                f"unknown bm25_params {sorted(bm25_params)}; accepted: k1, b, method, delta, epsilon"
            ) from err
        vocab: dict[str, int] = {}
        term_ids = array("q")
        doc_lengths = array("q")
        lookup = vocab.__getitem__
        for tokens in corpus_tokens:
            doc_lengths.append(len(tokens))
            for term in dict.fromkeys(
                tokens
            ):  # new terms get the next ids, in order of first appearance
                if term not in vocab:
                    vocab[term] = len(vocab)
            term_ids.extend(map(lookup, tokens))
        num_docs = len(doc_lengths)
        lengths = np.frombuffer(doc_lengths, dtype=np.int64) if num_docs else np.zeros(0, np.int64)
        keys, tf = _unique_pairs(term_ids, lengths, num_docs)
        del term_ids  # one integer per token: let it go before the per-posting arrays
        post_terms = keys // max(num_docs, 1)
        post_docs = keys % max(num_docs, 1)
        del keys
        df = np.bincount(post_terms, minlength=len(vocab))
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        idf = _idf(df.astype(np.float64), num_docs, params)
        avgdl = float(lengths.mean()) if num_docs and lengths.sum() else 1.0
        weights = _term_weights(
            tf.astype(np.float64), lengths[post_docs].astype(np.float64), avgdl, params
        )
        weights *= idf[post_terms]
        return cls(
            vocab, indptr, post_docs.astype(np.int32), weights.astype(np.float32), num_docs, params
        )

    def term_ids(self, tokens: Sequence[str]) -> list[int]:
        """Vocabulary ids of the known tokens (repeats kept: a repeated query term counts twice)."""
        get = self.vocab.get
        return [i for i in (get(t) for t in tokens) if i is not None]

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query terms (0 where no term matches)."""
        ids = self.term_ids(tokens)
        if not ids:
            return np.zeros(self.num_docs, dtype=np.float32)
        if len(ids) == 1:
            lo, hi = self.indptr[ids[0]], self.indptr[ids[0] + 1]
            out = np.zeros(self.num_docs, dtype=np.float32)
            out[self.doc_ids[lo:hi]] = self.weights[lo:hi]
            return out
        slices = [slice(self.indptr[i], self.indptr[i + 1]) for i in ids]
        docs = np.concatenate([self.doc_ids[s] for s in slices])
        weights = np.concatenate([self.weights[s] for s in slices])
        return np.bincount(docs, weights=weights, minlength=self.num_docs).astype(np.float32)

    def top_k(self, tokens: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and scores of the best ``k`` documents matching at least one term, best first."""
        if k <= 0 or self.num_docs == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        scores = self.scores(tokens)
        if self.params["method"] in _MAY_BE_ZERO:
            candidates = np.flatnonzero(self._matched(tokens))
        else:  # every matching term adds a positive weight
            candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            cand_scores = scores[candidates]
            kth = cand_scores[np.argpartition(-cand_scores, k - 1)[:k]].min()
            candidates = candidates[cand_scores >= kth]  # keep every tie at the cut
        # best score first; ties broken by document order so results are deterministic
        top = candidates[np.lexsort((candidates, -scores[candidates]))][:k]
        return top, scores[top]

    def _matched(self, tokens: Sequence[str]) -> np.ndarray:
        mask = np.zeros(self.num_docs, dtype=bool)
        for i in self.term_ids(tokens):
            mask[self.doc_ids[self.indptr[i] : self.indptr[i + 1]]] = True
        return mask

    # -- persistence -------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        return {"indptr": self.indptr, "doc_ids": self.doc_ids, "weights": self.weights}

    def vocabulary(self) -> list[str]:
        """Terms in id order."""
        terms = [""] * len(self.vocab)
        for term, i in self.vocab.items():
            terms[i] = term
        return terms

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], terms: list[str], num_docs: int, params: dict[str, Any]
    ) -> BM25Index:
        indptr, doc_ids, weights = arrays["indptr"], arrays["doc_ids"], arrays["weights"]
        if (
            len(indptr) != len(terms) + 1
            or len(doc_ids) != len(weights)
            or int(indptr[0]) != 0
            or int(indptr[-1]) != len(doc_ids)
            or bool(np.any(np.diff(indptr) < 0))
        ):
            raise IndexCorruptedError(
                "BM25 arrays do not match the vocabulary (index files from different saves?)"
            )
        if len(doc_ids) and (int(doc_ids.max()) >= num_docs or int(doc_ids.min()) < 0):
            raise IndexCorruptedError(
                "BM25 postings point past the number of documents (index files from different saves?)"
            )
        if not bool(np.all(np.isfinite(weights))):
            raise IndexCorruptedError("BM25 weights are not all finite numbers (a damaged file?)")
        vocab = {t: i for i, t in enumerate(terms)}
        if len(vocab) != len(terms):
            raise IndexCorruptedError("the BM25 vocabulary repeats terms (a damaged file?)")
        try:
            checked = cls.check_params(**params)
        except (ConfigurationError, TypeError) as err:
            raise IndexCorruptedError(f"invalid BM25 parameters {params!r} ({err})") from None
        return cls(vocab, indptr.astype(np.int64), doc_ids, weights, num_docs, checked)


def _unique_pairs(
    term_ids: array[int], lengths: np.ndarray, num_docs: int
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (term, document) pairs as ``term * num_docs + doc``, sorted, and their counts.

    Sorted term-major, they are the CSC postings, and the counts are the term frequencies.
    Worked in place over ``term_ids`` (which it overwrites): about two integers of memory per
    token at the peak, where ``np.unique`` takes four.
    """
    if not term_ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys = np.frombuffer(term_ids, dtype=np.int64)  # a writable view: no copy
    keys *= max(num_docs, 1)
    keys += np.repeat(np.arange(num_docs, dtype=np.int64), lengths)
    keys.sort()
    starts = np.empty(len(keys), dtype=bool)
    starts[0] = True
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    first = np.flatnonzero(starts)
    del starts
    return keys[first], np.diff(first, append=len(keys))


def _idf(df: np.ndarray, n: int, params: dict[str, Any]) -> np.ndarray:
    method = params["method"]
    if method == "robertson":
        idf = np.log((n - df + 0.5) / (df + 0.5))
        floor = params["epsilon"] * float(idf.mean()) if len(idf) else 0.0
        return np.where(idf < 0, floor, idf)
    if method == "atire":
        return np.log(n / df)
    return np.log1p((n - df + 0.5) / (df + 0.5))


def _term_weights(
    tf: np.ndarray, dl: np.ndarray, avgdl: float, params: dict[str, Any]
) -> np.ndarray:
    k1, b, delta, method = params["k1"], params["b"], params["delta"], params["method"]
    norm = 1 - b + b * dl / avgdl
    if method == "bm25l":
        ctd = tf / norm
        return (k1 + 1) * (ctd + delta) / (k1 + ctd + delta)
    weight = tf * (k1 + 1) / (tf + k1 * norm)
    if method == "bm25+":
        weight = weight + delta
    return weight
