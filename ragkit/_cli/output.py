"""Rendering for the ``ragkit`` command: rich on a terminal, plain text otherwise, JSON on request.

With ``--json`` exactly one JSON document goes to stdout; progress and
messages go to stderr, so scripts can parse stdout safely.
"""

from __future__ import annotations

import json
import re
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragkit.documents import Document
    from ragkit.indexing.writer import IndexReport, Progress


def is_tty(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def err(message: str) -> None:
    sys.stderr.write(message.rstrip("\n") + "\n")


class ProgressView:
    """A live progress line on a terminal (rich); silent when stderr is not a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and is_tty(sys.stderr)
        self._live: Any = None
        self._last = 0.0
        self._stage = ""

    def __enter__(self) -> ProgressView:
        if self.enabled:
            from rich.console import Console
            from rich.live import Live

            self._live = Live(
                "", console=Console(stderr=True), refresh_per_second=8, transient=True
            )
            self._live.__enter__()
        return self

    def __call__(self, p: Progress) -> None:
        if self._live is None:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and p.stage == self._stage:
            return
        self._last, self._stage = now, p.stage
        elapsed = max(now - p.started, 1e-6)
        rate = p.embedded / elapsed
        files_rate = max(p.files_done, 1) / elapsed
        eta = (p.files_total - p.files_done) / files_rate if p.files_total else 0.0
        self._live.update(
            f"[bold]{p.stage}[/] files {p.files_done}/{p.files_total}  chunks {p.chunks}  "
            f"embedded {p.embedded} ({rate:.0f}/s)  elapsed {elapsed:.0f}s  ETA {eta:.0f}s"
        )

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)


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


def print_results(docs: list[Document], query: str) -> None:
    terms = [w for w in re.findall(r"\w+", query) if len(w) > 2]
    rich_out = is_tty(sys.stdout)
    if not docs:
        print("no results")
        return
    if rich_out:
        from rich.console import Console
        from rich.text import Text

        console = Console()
        for rank, doc in enumerate(docs, 1):
            head = Text(f"{rank}. {doc.metadata.get('source', '?')}", style="bold")
            head.append(f"  score {doc.metadata.get('score', float('nan')):.4f}", style="dim")
            console.print(head)
            body = Text("   " + snippet(doc.page_content, query))
            body.highlight_words(terms, style="bold yellow", case_sensitive=False)
            console.print(body)
        return
    for rank, doc in enumerate(docs, 1):
        print(
            f"{rank}. {doc.metadata.get('source', '?')}  score {doc.metadata.get('score', float('nan')):.4f}"
        )
        print("   " + snippet(doc.page_content, query))


def result_json(doc: Document, rank: int) -> dict[str, Any]:
    meta = {k: v for k, v in doc.metadata.items() if k != "score"}
    return {
        "rank": rank,
        "id": doc.id,
        "source": meta.get("source"),
        "score": doc.metadata.get("score"),
        "text": doc.page_content,
        "metadata": meta,
    }
