"""Like for like, for benchmarks/documents.py: each format read by ragkit's loader of the
name the migration guide gives for LangChain's, built directly, beside LangChain's loader.

The main table reads every file the way ``ragkit index`` does: the loader is chosen from the
file's name and its first bytes (content sniffing, the charset decision, the binary check),
and e-mail attachments are read as Documents of their own. A LangChain user who ports
``CSVLoader(path)`` to ``ragkit.loaders.CSVLoader(path)`` skips that choice; this table
measures that: the same class name, LangChain's arguments where they differ from the defaults
(``include_outputs=True`` for notebooks, as the LangChain worker passes), and the e-mail
loaders with ``process_attachments=False`` (LangChain's loaders skip attachments). ``.eml``
and ``.mbox`` have no LangChain loader that installs without PyTorch; they are listed for
the attachments comparison.

Example:
    >>> SAME_LOADER["docx"]
    ('Docx2txtLoader', {})
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

SAME_LOADER_TOOL = "ragkit-same-loader"
NO_ATTACHMENTS = {"process_attachments": False}
PLAIN = ("txt", "md", "rst", "org", "py", "yaml", "toml", "tex", "xml")

# format -> (ragkit.loaders class, keyword arguments): the migration guide's row for the
# LangChain loader benchmarks/documents.py runs on that format.
SAME_LOADER: dict[str, tuple[str, dict[str, Any]]] = {
    "pdf": ("PDFLoader", {}),  # LangChain's PyPDFLoader
    "docx": ("Docx2txtLoader", {}),
    "html": ("BSHTMLLoader", {}),
    "csv": ("CSVLoader", {}),
    "ipynb": ("NotebookLoader", {"include_outputs": True}),
    "msg": ("OutlookMessageLoader", NO_ATTACHMENTS),
    "eml": ("EmailLoader", NO_ATTACHMENTS),
    "mbox": ("MboxLoader", NO_ATTACHMENTS),
    **{kind: ("TextLoader", {}) for kind in PLAIN},
}


def same_loader_reader(folder: Path) -> Callable[[str, str], str]:
    """A worker's reader: ``read(name, format)`` with ragkit's loader of :data:`SAME_LOADER`."""
    from ragkit import loaders

    def read(name: str, fmt: str) -> str:
        cls_name, kwargs = SAME_LOADER[fmt]
        docs = getattr(loaders, cls_name)(str(folder / name), **kwargs).load()
        return "\n".join(d.page_content for d in docs)

    return read


def _cells(run: dict[str, Any] | None, names: set[str]) -> list[str]:
    """``[text, files/s]`` of ``run`` over ``names``."""
    done = [r for r in (run or {}).get("files", []) if r["name"] in names]
    if not done:
        return ["—", "—"]
    secs = sum(r["seconds"] for r in done)
    text = f"{sum(r['text'] for r in done)}/{len(done)}"
    return [text, f"{len(done) / secs:,.1f}" if secs > 0 else "—"]


def _both_read_ratio(same: dict[str, Any], theirs: dict[str, Any] | None, names: set[str]) -> str:
    """ragkit's files/s over LangChain's, over the files of ``names`` both read text from (a
    file LangChain fails on fast would otherwise count for it)."""
    ours = {r["name"]: r for r in same.get("files", []) if r["name"] in names and r["text"]}
    their = {r["name"]: r for r in (theirs or {}).get("files", []) if r["name"] in ours}
    common = [n for n, r in their.items() if r["text"]]
    our_secs = sum(ours[n]["seconds"] for n in common)
    their_secs = sum(their[n]["seconds"] for n in common)
    if not common or our_secs <= 0:
        return "—"
    return f"{their_secs / our_secs:.2f}x ({len(common)})"


def like_for_like_table(
    same: dict[str, Any],
    runs: dict[str, dict[str, Any]],
    files: list[tuple[str, str]],
    langchain_names: dict[str, str],
) -> str:
    """The table: per format, ragkit's same-name loader, ragkit as ``ragkit index`` reads
    (the main table's run), LangChain's loader, and the first's speed over the last's."""
    head = [
        "format",
        "files",
        "LangChain loader",
        "ragkit loader",
        "ragkit same loader text",
        "ragkit same loader files/s",
        "ragkit index path files/s",
        "LangChain text",
        "LangChain files/s",
        "same loader / LangChain (files both read)",
    ]
    lines = [
        "Like for like: ragkit's loader of the same name, built directly (no content sniffing; "
        "e-mail with process_attachments=False):",
        "",
        "| " + " | ".join(head) + " |",
        "| --- | ---: | --- | --- |" + " ---: |" * (len(head) - 4),
    ]
    formats = sorted({fmt for _, fmt in files if fmt in SAME_LOADER})
    for fmt in formats:
        names = {name for name, f in files if f == fmt}
        ours = _cells(same, names)
        index_path = _cells(runs.get("ragkit"), names)
        theirs = _cells(runs.get("langchain"), names)
        ratio = _both_read_ratio(same, runs.get("langchain"), names)
        lines.append(
            "| "
            + " | ".join(
                [fmt, str(len(names)), langchain_names.get(fmt, "—"), SAME_LOADER[fmt][0]]
                + ours
                + index_path[1:]
                + theirs
                + [ratio]
            )
            + " |"
        )
    peak = same.get("peak_rss_mb")
    if peak is not None:
        lines += ["", f"Peak RSS of the same-loader worker: {peak:.0f} MB."]
    return "\n".join(lines)
