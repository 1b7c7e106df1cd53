"""Rendering for the ``ragkit`` command: rich on a terminal, plain text otherwise, JSON on request.

With ``--json`` exactly one JSON document goes to stdout; progress and
messages go to stderr, so scripts can parse stdout safely.
"""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragkit.documents import Document
    from ragkit.indexing.writer import IndexReport
    from ragkit.querying.scores import ScoreKind


def is_tty(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def err(message: str) -> None:
    sys.stderr.write(message.rstrip("\n") + "\n")


def report_summary(report: IndexReport, index_dir: str) -> str:
    """The text report of ``ragkit index``: counts, then what was ignored or failed and why."""
    from ragkit.indexing.report import escape_text, summary_lines

    lines = [
        f"Indexed into {escape_text(index_dir)} in {report.seconds:.2f} s"
        + ("" if report.committed else " (nothing changed; index left as it was)"),
        f"  added {report.num_added}  updated {report.num_updated}  skipped {report.num_skipped}  "
        f"deleted {report.num_deleted}",
        f"  files: {report.files_seen} seen, {report.files_loaded} loaded, {report.files_unchanged} unchanged; "
        f"{report.chunks} chunks in the index",
    ]
    return "\n".join(lines + summary_lines(report))


def snippet(text: str, query: str, width: int = 240) -> str:
    """The part of ``text`` around the first query word it contains, on one line."""
    flat = " ".join(text.split())
    words = [w for w in re.findall(r"\w+", query.lower()) if len(w) > 2]
    pos = min((flat.lower().find(w) for w in words if w in flat.lower()), default=0)
    start = max(0, pos - width // 3)
    out = flat[start : start + width]
    return ("…" if start else "") + out + ("…" if start + width < len(flat) else "")


def _score_text(doc: Document, scale: ScoreKind) -> str:
    score = doc.metadata.get("score")
    if scale.name == "none" or not isinstance(score, (int, float)):
        return ""
    return f"  {scale.name} {score:.4f}"


def _also_in(doc: Document) -> str:
    copies = doc.metadata.get("duplicates") or []
    if not copies:
        return ""
    shown = ", ".join(str(c) for c in copies[:3])
    more = f" and {len(copies) - 3} more" if len(copies) > 3 else ""
    return f"   (also in {shown}{more})"


def score_legend(scale: ScoreKind, retriever: str) -> str:
    """One line saying what the scores of ``retriever`` are and how to read them."""
    if scale.name == "none":
        return f"{retriever}: no scores ({scale.hint})"
    order = "higher is better" if scale.higher_is_better else "lower is better"
    return f"{retriever}: scores are {scale.label}, {order} ({scale.hint})"


def print_results(
    docs: list[Document], query: str, scale: ScoreKind | None = None, retriever: str = ""
) -> None:
    from ragkit.querying.scores import SCORE_KINDS

    scale = scale or SCORE_KINDS["cosine"]
    terms = [w for w in re.findall(r"\w+", query) if len(w) > 2]
    rich_out = is_tty(sys.stdout)
    if not docs:
        print("no results")
        return
    legend = score_legend(scale, retriever or "results")
    if rich_out:
        from rich.console import Console
        from rich.text import Text

        console = Console()
        console.print(Text(legend, style="dim"))
        for rank, doc in enumerate(docs, 1):
            head = Text(f"{rank}. {doc.metadata.get('source', '?')}", style="bold")
            head.append(_score_text(doc, scale), style="dim")
            head.append(_also_in(doc), style="dim")
            console.print(head)
            body = Text("   " + snippet(doc.page_content, query))
            body.highlight_words(terms, style="bold yellow", case_sensitive=False)
            console.print(body)
        return
    print(legend)
    for rank, doc in enumerate(docs, 1):
        print(f"{rank}. {doc.metadata.get('source', '?')}{_score_text(doc, scale)}{_also_in(doc)}")
        print("   " + snippet(doc.page_content, query))


def result_json(doc: Document, rank: int, scale: ScoreKind | None = None) -> dict[str, Any]:
    meta = {k: v for k, v in doc.metadata.items() if k != "score"}
    return {
        "rank": rank,
        "id": doc.id,
        "source": meta.get("source"),
        "score": doc.metadata.get("score"),
        "score_kind": scale.name if scale is not None else None,
        "duplicates": list(meta.get("duplicates") or []),
        "text": doc.page_content,
        "metadata": meta,
    }
