"""load_beir: read a dataset in BEIR layout (corpus, queries, qrels) into Documents and dicts.

Layout (``.jsonl`` files may also be gzipped as ``.jsonl.gz``)::

    corpus.jsonl     {"_id": "d1", "title": "...", "text": "..."} per line
    queries.jsonl    {"_id": "q1", "text": "..."} per line
    qrels/test.tsv   query-id <TAB> corpus-id <TAB> score   (one header line)

``Document.id`` is the BEIR ``_id`` and the title goes in ``metadata["title"]``;
by default the title is also put before the text (``"title\\ntext"``), as BEIR
retrieval does. Only queries judged in the split are kept.

Malformed files raise :class:`~ragkit.errors.DatasetError` naming the file and
line: invalid JSON (nested too deeply included), invalid UTF-8, a damaged
``.gz``, an empty corpus, and qrels without a single positive grade (every
metric would be undefined: a table of dashes).

Example:
    >>> # data = load_beir("datasets/bicycle-care")
    >>> # len(data.corpus), len(data.queries), data.qrels["q1"]
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit._io.safe_read import parse_json_line
from ragkit.documents import Document
from ragkit.errors import DatasetError


@dataclass
class BeirDataset:
    """An evaluation dataset: ``corpus`` (id → Document), ``queries`` (id → text), ``qrels`` (id → {doc id: grade})."""

    corpus: dict[str, Document]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    name: str = "dataset"
    split: str = "test"
    path: Path | None = field(default=None, repr=False)

    @property
    def documents(self) -> list[Document]:
        """The corpus as a list, in file order (what retrievers are built from)."""
        return list(self.corpus.values())

    def subset(self, num_queries: int | None = None, num_docs: int | None = None) -> BeirDataset:
        """A smaller copy: the first ``num_queries`` queries and a corpus of about ``num_docs`` documents.

        The corpus keeps every document judged for the kept queries (even if they alone exceed
        ``num_docs``), then fills up to ``num_docs`` with the first other documents in file order
        (distractors), so scores stay meaningful.
        """
        qids = list(self.queries)[:num_queries] if num_queries is not None else list(self.queries)
        queries = {q: self.queries[q] for q in qids}
        qrels = {q: dict(self.qrels[q]) for q in qids if q in self.qrels}
        if num_docs is None:
            corpus = dict(self.corpus)
        else:
            keep = {d for q in qrels for d in qrels[q] if d in self.corpus}
            for doc_id in self.corpus:
                if len(keep) >= num_docs:
                    break
                keep.add(doc_id)
            corpus = {d: doc for d, doc in self.corpus.items() if d in keep}
        return BeirDataset(corpus, queries, qrels, name=self.name, split=self.split, path=self.path)

    def __repr__(self) -> str:
        return (
            f"BeirDataset(name={self.name!r}, split={self.split!r}, docs={len(self.corpus)}, "
            f"queries={len(self.queries)}, judgements={sum(len(v) for v in self.qrels.values())})"
        )


def load_beir(path: str | Path, split: str = "test", prepend_title: bool = True) -> BeirDataset:
    """Load a BEIR-format dataset from directory ``path``; keeps only the queries judged in ``split``."""
    root = Path(path)
    if not root.is_dir():
        raise DatasetError(f"BEIR dataset directory {root} does not exist")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        available = (
            sorted(p.stem for p in (root / "qrels").glob("*.tsv"))
            if (root / "qrels").is_dir()
            else []
        )
        raise DatasetError(
            f"{qrels_path} is missing; splits available in {root}: {available or 'none'}"
        )
    qrels = _read_qrels(qrels_path)
    if not any(grade > 0 for judged in qrels.values() for grade in judged.values()):
        raise DatasetError(
            f"{qrels_path}: every grade is 0 or less, so no document is relevant to any query "
            "and every score would be undefined; grades of relevant documents must be >= 1"
        )
    corpus: dict[str, Document] = {}
    corpus_path = _find(root, "corpus")
    for lineno, row in _read_jsonl(corpus_path):
        doc_id = _field(row, "_id", corpus_path, lineno)
        text = row.get("text", "")
        title = row.get("title", "") or ""
        if not isinstance(text, str) or not isinstance(title, str):
            raise DatasetError(f"{corpus_path}:{lineno}: 'text' and 'title' must be strings")
        content = f"{title}\n{text}" if prepend_title and title else text
        metadata: dict[str, Any] = {"title": title}
        if isinstance(row.get("metadata"), dict):
            metadata.update(row["metadata"])
        if doc_id in corpus:
            raise DatasetError(f"{corpus_path}:{lineno}: document _id {doc_id!r} appears twice")
        corpus[doc_id] = Document(content, metadata=metadata, id=doc_id)
    if not corpus:
        raise DatasetError(f"{corpus_path} holds no documents")
    queries_path = _find(root, "queries")
    queries, ordered = _judged_queries(queries_path, qrels_path, qrels)
    return BeirDataset(corpus, queries, ordered, name=root.name, split=split, path=root)


def _judged_queries(
    queries_path: Path, qrels_path: Path, qrels: dict[str, dict[str, int]]
) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """The text of every judged query, and the judgements in the queries file's order.

    A judged query missing from the queries file is an error naming both files.
    """
    queries: dict[str, str] = {}
    for lineno, row in _read_jsonl(queries_path):
        qid = _field(row, "_id", queries_path, lineno)
        if qid in qrels:
            text = row.get("text")
            if not isinstance(text, str):
                raise DatasetError(f"{queries_path}:{lineno}: query {qid!r} has no string 'text'")
            queries[qid] = text
    missing = sorted(set(qrels) - set(queries))
    if missing:
        raise DatasetError(
            f"{qrels_path} judges queries missing from {queries_path}: {missing[:5]}"
        )
    return queries, {q: qrels[q] for q in queries}


def _find(root: Path, stem: str) -> Path:
    for name in (f"{stem}.jsonl", f"{stem}.jsonl.gz"):
        if (root / name).is_file():
            return root / name
    raise DatasetError(f"{root} has no {stem}.jsonl or {stem}.jsonl.gz")


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    lineno = 0
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                row = parse_json_line(line, f"{path}:{lineno}", DatasetError)
                if not isinstance(row, dict):
                    raise DatasetError(f"{path}:{lineno}: expected a JSON object")
                yield lineno, row
    except UnicodeDecodeError as err:
        raise DatasetError(
            f"{path}:{lineno + 1}: not valid UTF-8 ({err.reason} at byte {err.start} of the "
            "block read)"
        ) from None
    except (OSError, EOFError, zlib.error) as err:  # gzip.BadGzipFile is an OSError
        where = f"{path}:{lineno + 1}" if lineno else str(path)
        raise DatasetError(
            f"{where}: cannot be read ({type(err).__name__}: {err}); is the file damaged or "
            "truncated?"
        ) from None


def _field(row: dict[str, Any], name: str, path: Path, lineno: int) -> str:
    value = row.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise DatasetError(f"{path}:{lineno}: missing or empty {name!r}")
    return value


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    try:
        return _parse_qrels(path)
    except UnicodeDecodeError as err:
        raise DatasetError(f"{path}: not valid UTF-8 ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise DatasetError(f"{path}: cannot be read ({err.strerror or err})") from None


def _parse_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            parts = line.rstrip("\n\r").split("\t")
            if lineno == 1 and parts[:2] == ["query-id", "corpus-id"]:
                continue
            if not line.strip():
                continue
            if len(parts) != 3:
                raise DatasetError(f"{path}:{lineno}: expected 'query-id<TAB>corpus-id<TAB>score'")
            try:
                grade = int(parts[2])
            except ValueError as err:
                raise DatasetError(
                    f"{path}:{lineno}: score {parts[2]!r} is not an integer"
                ) from err
            qrels.setdefault(parts[0], {})[parts[1]] = grade
    if not qrels:
        raise DatasetError(f"{path} has no judgements")
    return qrels


def load_judgements(queries: str | Path, qrels: str | Path, name: str | None = None) -> BeirDataset:
    """Queries and judgements without a corpus, to evaluate an existing index.

    ``queries`` is a BEIR ``queries.jsonl`` (``{"_id": ..., "text": ...}`` per line, may be
    gzipped) and ``qrels`` a BEIR qrels TSV (``query-id<TAB>corpus-id<TAB>score``); the
    corpus ids name the index's documents (see :func:`ragkit.eval.match_sources`).

    Example:
        >>> # data = load_judgements("my-queries.jsonl", "my-qrels.tsv")
    """
    queries_path, qrels_path = Path(queries), Path(qrels)
    for label, path in (("queries", queries_path), ("qrels", qrels_path)):
        if not path.is_file():
            raise DatasetError(f"{label} file {path} does not exist")
    judged = _read_qrels(qrels_path)
    texts, ordered = _judged_queries(queries_path, qrels_path, judged)
    return BeirDataset(
        {}, texts, ordered, name=name or qrels_path.stem, split=qrels_path.stem, path=None
    )
