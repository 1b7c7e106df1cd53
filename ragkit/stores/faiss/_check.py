"""Check a FAISS index file's structure before FAISS reads it.

FAISS's reader trusts the lengths written in a file: a crafted length makes it allocate
(and zero) up to 2**40 elements before it notices the file is too short, so a small
file can take gigabytes of memory; out-of-range ids or graph links surface later as
crashes or wrong answers. :func:`check_faiss_file` walks the file the way FAISS would,
checking every length against the bytes that remain and against the store's count and
dimension, and every id and link against the vector count, reading only lengths, ids
and links (vectors and codes are skipped). It understands the index types FaissStore
builds: ``Flat`` (the default), ``SQ``, ``PQ``, ``HNSW`` over those, and ``IVF`` with
flat, SQ or PQ codes. Any other type is refused, on save as on load.

Example:
    >>> import faiss, numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "x.faiss")
    >>> index = faiss.IndexFlatIP(4); index.add(np.eye(4, dtype="float32"))
    >>> faiss.write_index(index, path)
    >>> check_faiss_file(path, dimension=4, count=4)
    'IxFI'
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from typing import BinaryIO

import numpy as np

from ragkit.errors import IndexCorruptedError

FLAT = ("IxFI", "IxF2", "IxFl")
SUPPORTED = (*FLAT, "IxSQ", "IxPq", "IHNf", "IHNs", "IHNp", "IwFl", "IwSQ", "IwSq", "IwPQ")
_MAX_DIMENSION = 1 << 20
_SQ_TYPES = range(9)  # QT_8bit ... QT_8bit_direct_signed


class _Stream:
    """A bounded reader over one open file: no read or skip goes past the end."""

    def __init__(self, handle: BinaryIO, size: int, path: str) -> None:
        self.handle, self.size, self.path, self.pos = handle, size, path, 0

    def fail(self, why: str) -> IndexCorruptedError:
        return IndexCorruptedError(
            f"{self.path!r} is not a readable FAISS index: {why} (at byte {self.pos})"
        )

    def need(self, count: int, what: str) -> None:
        if count < 0 or count > self.size - self.pos:
            raise self.fail(
                f"{what} declares {count} bytes, but only {self.size - self.pos} remain"
            )

    def read(self, count: int, what: str) -> bytes:
        self.need(count, what)
        data = self.handle.read(count)
        if len(data) != count:
            raise self.fail(f"{what} ends early")
        self.pos += count
        return data

    def skip(self, count: int, what: str) -> None:
        self.need(count, what)
        self.handle.seek(count, os.SEEK_CUR)
        self.pos += count

    def scalar(self, fmt: str, what: str) -> int | float:
        value: int | float = struct.unpack("<" + fmt, self.read(struct.calcsize(fmt), what))[0]
        return value

    def integer(self, fmt: str, what: str) -> int:
        return int(self.scalar(fmt, what))

    def length(self, item: int, what: str) -> int:
        """A vector's element count (a ``size_t``), checked to fit in the rest of the file."""
        count = self.integer("Q", f"the length of {what}")
        self.need(count * item, what)
        return count

    def array(self, dtype: str, what: str, count: int | None = None) -> np.ndarray:
        kind = np.dtype(dtype)
        count = self.length(kind.itemsize, what) if count is None else count
        return np.frombuffer(self.read(count * kind.itemsize, what), dtype=kind)

    def fourcc(self) -> str:
        raw = self.read(4, "an index type")
        return raw.decode("latin-1")


class _Index:
    """What the walk learned about one (sub-)index."""

    def __init__(self, kind: str, d: int, ntotal: int, metric: int) -> None:
        self.kind, self.d, self.ntotal, self.metric = kind, d, ntotal, metric


def _header(s: _Stream, kind: str) -> _Index:
    d = s.integer("i", "the dimension")
    ntotal = s.integer("q", "the vector count")
    s.skip(16 + 1, "the header")
    metric = s.integer("i", "the metric")
    if metric > 1:
        s.skip(4, "the metric argument")
    if not 0 < d <= _MAX_DIMENSION or ntotal < 0 or metric not in range(0, 64):
        raise s.fail(f"invalid header (dimension {d}, count {ntotal}, metric {metric})")
    return _Index(kind, d, ntotal, metric)


def _codes(s: _Stream, index: _Index, code_size: int) -> None:
    count = s.length(1, "the codes")
    if count != index.ntotal * code_size:
        raise s.fail(f"{count} bytes of codes for {index.ntotal} vectors of {code_size} bytes")
    s.skip(count, "the codes")


def _sq(s: _Stream, d: int) -> int:
    """A ScalarQuantizer; returns its code size."""
    from ragkit.stores.faiss._index import faiss_module

    qtype = s.integer("i", "the quantizer type")
    s.skip(8, "the quantizer range")
    sq_d, code_size = s.integer("Q", "the quantizer dimension"), s.integer("Q", "the code size")
    trained = s.length(4, "the quantizer's trained values")
    if qtype not in _SQ_TYPES or sq_d != d:
        raise s.fail(f"invalid scalar quantizer (type {qtype}, dimension {sq_d})")
    expected = int(faiss_module().ScalarQuantizer(d, qtype).code_size)
    if code_size != expected or trained not in (0, 2, 2 * d):
        raise s.fail(f"invalid scalar quantizer sizes (code size {code_size}, trained {trained})")
    s.skip(trained * 4, "the quantizer's trained values")
    return code_size


def _pq(s: _Stream, d: int) -> int:
    """A ProductQuantizer; returns its code size."""
    pq_d, m, nbits = (s.integer("Q", f"the quantizer's {n}") for n in ("dimension", "M", "nbits"))
    if pq_d != d or not 0 < m <= d or d % m or not 0 < nbits <= 16:
        raise s.fail(f"invalid product quantizer (d {pq_d}, M {m}, nbits {nbits})")
    count = s.length(4, "the centroids")
    if count != d * (1 << nbits):
        raise s.fail(f"{count} centroid values, expected {d * (1 << nbits)}")
    s.skip(count * 4, "the centroids")
    return (m * nbits + 7) // 8


def _hnsw(s: _Stream, ntotal: int) -> None:
    probas = s.length(8, "the level probabilities")
    s.skip(probas * 8, "the level probabilities")
    cum = s.array("<i4", "the neighbours per level").astype(np.int64)
    levels = s.array("<i4", "the levels").astype(np.int64)
    offsets = s.array("<u8", "the neighbour offsets")
    neighbors = s.array("<i4", "the neighbour links")
    entry, max_level = s.integer("i", "the entry point"), s.integer("i", "the top level")
    s.skip(12, "the search parameters")
    ok = (
        len(cum) >= 2
        and cum[0] == 0
        and bool(np.all(np.diff(cum) >= 0))
        and len(levels) == ntotal
        and len(offsets) == ntotal + 1
        and probas <= len(cum)
    )
    if ok and ntotal:
        ok = bool(levels.min() >= 1 and levels.max() < len(cum))
        ok = ok and int(offsets[0]) == 0
        ok = ok and bool(np.array_equal(np.diff(offsets.astype(np.int64)), cum[levels]))
        ok = ok and 0 <= entry < ntotal and max_level == int(levels.max()) - 1
    ok = ok and len(neighbors) == (int(offsets[-1]) if len(offsets) else 0)
    ok = ok and (not len(neighbors) or bool(neighbors.min() >= -1 and neighbors.max() < ntotal))
    if not ok:
        raise s.fail("the HNSW graph is inconsistent (levels, offsets or links out of range)")


def _ivf(s: _Stream, index: _Index) -> None:
    nlist, _nprobe = s.integer("Q", "the list count"), s.integer("Q", "the probe count")
    quantizer = _index(s)
    if quantizer.kind not in FLAT or quantizer.ntotal != nlist or quantizer.d != index.d:
        raise s.fail(f"invalid coarse quantizer for {nlist} lists")
    map_type = s.integer("B", "the direct map type")
    direct = s.array("<i8", "the direct map")
    if map_type not in (0, 1) or (map_type == 0 and len(direct)):
        raise s.fail(f"unsupported direct map (type {map_type})")
    kind = index.kind
    if kind == "IwFl":
        code_size = 4 * index.d
    elif kind in ("IwSQ", "IwSq"):
        code_size = _sq(s, index.d)
        if s.integer("Q", "the code size") != code_size:
            raise s.fail("the code size disagrees with the quantizer")
        if kind == "IwSq":
            s.skip(1, "by_residual")
    else:  # IwPQ
        s.skip(1, "by_residual")
        stored = s.integer("Q", "the code size")
        if _pq(s, index.d) != stored:
            raise s.fail("the code size disagrees with the quantizer")
        code_size = stored
    ids = _inverted_lists(s, nlist, code_size, index.ntotal)
    if map_type == 1:
        _check_direct_map(s, direct, ids)


def _inverted_lists(
    s: _Stream, nlist: int, code_size: int, ntotal: int
) -> tuple[np.ndarray, np.ndarray]:
    """Walk ``ilar`` inverted lists; returns (all ids in list order, start of each list)."""
    if s.fourcc() != "ilar":
        raise s.fail("unsupported inverted lists")
    if s.integer("Q", "the list count") != nlist or s.integer("Q", "the code size") != code_size:
        raise s.fail("the inverted lists disagree with the index")
    list_type = s.fourcc()
    if list_type == "full":
        sizes = s.array("<u8", "the list sizes").astype(np.int64)
        if len(sizes) != nlist:
            raise s.fail(f"{len(sizes)} list sizes for {nlist} lists")
    elif list_type == "sprs":
        pairs = s.array("<u8", "the list sizes").astype(np.int64)
        if len(pairs) % 2 or (len(pairs) and int(pairs[0::2].max()) >= nlist):
            raise s.fail("invalid sparse list sizes")
        sizes = np.zeros(nlist, dtype=np.int64)
        sizes[pairs[0::2]] = pairs[1::2]
    else:
        raise s.fail(f"unsupported list layout {list_type!r}")
    if len(sizes) and (int(sizes.min()) < 0 or int(sizes.sum()) != ntotal):
        raise s.fail(f"the lists hold {int(sizes.sum())} vectors, the index says {ntotal}")
    parts = []
    for n in sizes.tolist():
        if n:
            s.skip(n * code_size, "the list codes")
            parts.append(s.array("<i8", "the list ids", count=n))
    ids = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    if len(ids) and (
        int(ids.min()) < 0
        or int(ids.max()) >= ntotal
        or not bool(np.all(np.bincount(ids, minlength=ntotal) == 1))
    ):
        raise s.fail("the inverted lists hold ids out of range or repeated")
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(sizes) else sizes
    return ids, starts


def _check_direct_map(s: _Stream, direct: np.ndarray, lists: tuple[np.ndarray, np.ndarray]) -> None:
    ids, starts = lists
    if len(direct) != len(ids):
        raise s.fail(f"the direct map has {len(direct)} entries for {len(ids)} vectors")
    if not len(direct):
        return
    list_no, offset = direct >> 32, direct & 0xFFFFFFFF
    if int(list_no.min()) < 0 or int(list_no.max()) >= len(starts):
        raise s.fail("the direct map points to lists that do not exist")
    where = starts[list_no] + offset
    if int(where.max()) >= len(ids) or not np.array_equal(ids[where], np.arange(len(ids))):
        raise s.fail("the direct map disagrees with the inverted lists")


def _index(s: _Stream, depth: int = 0) -> _Index:
    kind = s.fourcc()
    if kind not in SUPPORTED or depth > 2:
        raise s.fail(
            f"index type {kind!r} is not one ragkit saves or loads (supported: Flat, SQ, PQ, "
            "HNSW and IVF with flat, SQ or PQ codes)"
        )
    index = _header(s, kind)
    storage: dict[str, Callable[[_Index], bool]] = {
        "IHNf": lambda sub: sub.kind in FLAT,
        "IHNs": lambda sub: sub.kind == "IxSQ",
        "IHNp": lambda sub: sub.kind == "IxPq",
    }
    if kind in FLAT:
        count = s.length(4, "the vectors")
        if count != index.ntotal * index.d:
            raise s.fail(f"{count} vector values for {index.ntotal} vectors of dimension {index.d}")
        s.skip(count * 4, "the vectors")
    elif kind == "IxSQ":
        _codes(s, index, _sq(s, index.d))
    elif kind == "IxPq":
        _codes(s, index, _pq(s, index.d))
        s.skip(4 + 1 + 4, "the search settings")
    elif kind in storage:
        _hnsw(s, index.ntotal)
        sub = _index(s, depth + 1)
        if not storage[kind](sub) or sub.d != index.d or sub.ntotal != index.ntotal:
            raise s.fail("the HNSW storage does not match its graph")
    else:
        _ivf(s, index)
    return index


def check_faiss_file(
    path: str | os.PathLike[str],
    dimension: int | None = None,
    count: int | None = None,
    metric: int | None = None,
) -> str:
    """Walk the FAISS file at ``path``; returns its index type or raises IndexCorruptedError.

    ``dimension``, ``count`` and ``metric`` (FAISS's metric number), when given, must match.
    """
    from ragkit._io.safe_read import open_regular

    with open_regular(path) as handle:
        s = _Stream(handle, os.fstat(handle.fileno()).st_size, str(path))
        top = _index(s)
        if s.pos != s.size:
            raise s.fail(f"{s.size - s.pos} unexpected bytes after the index")
    if dimension is not None and top.d != dimension:
        raise s.fail(f"the vectors have dimension {top.d}, the manifest says {dimension}")
    if count is not None and top.ntotal != count:
        raise s.fail(f"the index holds {top.ntotal} vectors, the manifest says {count}")
    if metric is not None and top.metric != metric:
        raise s.fail(f"the index uses metric {top.metric}, the manifest says {metric}")
    return top.kind
