"""IndexReport: what one write to an index did, with every file that was not indexed and why.

Each entry of ``failures`` and ``ignored`` is a dict with ``path`` (printable:
bytes of a file name that are not valid UTF-8 appear as ``\\xNN``), ``error``
or ``reason``, and ``code`` (a short machine-readable reason such as
``no-loader``, ``hidden``, ``unreadable-folder``, ``too-large``). A failure of
part of a file (a bad JSON line, a PDF page) has ``"partial": True``: the rest
of that file was indexed.

Example:
    >>> report = IndexReport()
    >>> report.add_ignored("/d/photo.png", "no loader for this file type", "no-loader")
    >>> report.add_failure("/d/caf\\udce9.txt", "the file name is not valid UTF-8", "bad-name")
    >>> report.failures[0]["path"], report.ok
    ('/d/caf\\\\xe9.txt', False)
    >>> escape_text("a\\nb\\x1b[31m")
    'a\\\\nb\\\\x1b[31m'
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def display_path(path: str) -> str:
    """``path`` as printable text: undecodable bytes of the name (kept by ``os.fsdecode`` as
    lone surrogates) become ``\\xNN``, as ``ls -b`` shows them."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")


def escape_text(text: str) -> str:
    """``text`` safe to print on a terminal: control and format characters (newlines, escape
    sequences, bidirectional overrides) and undecodable bytes written as escapes."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _NAMED:
            out.append(_NAMED[ch])
        elif 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that is not valid UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass
class IndexReport:
    """What one write did: LangChain's ``num_*`` counts plus files, failures and timing."""

    num_added: int = 0
    num_updated: int = 0
    num_skipped: int = 0
    num_deleted: int = 0
    files_seen: int = 0
    files_loaded: int = 0
    files_unchanged: int = 0
    chunks: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    ignored: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    committed: bool = False

    @property
    def ok(self) -> bool:
        return not self.failures

    def add_failure(self, path: str, error: str, code: str, partial: bool = False) -> None:
        entry: dict[str, Any] = {"path": display_path(path), "error": error, "code": code}
        if partial:
            entry["partial"] = True
        self.failures.append(entry)

    def add_ignored(self, path: str, reason: str, code: str) -> None:
        self.ignored.append({"path": display_path(path), "reason": reason, "code": code})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _extension(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    ext = os.path.splitext(name)[1].lower()
    return ext or "(no extension)"


def summary_lines(report: IndexReport, examples: int = 3) -> list[str]:
    """The ``ignored`` and ``failures`` part of the text report (file names escaped).

    Files without a loader are summarised by extension (the ``--json`` report lists them all);
    every other ignored entry and every failure gets its own line.
    """
    lines: list[str] = []
    if report.ignored:
        lines.append(f"  {len(report.ignored)} ignored:")
        by_ext: dict[str, list[str]] = {}
        others = []
        for item in report.ignored:
            if item.get("code") == "no-loader":
                by_ext.setdefault(_extension(item["path"]), []).append(item["path"])
            else:
                others.append(item)
        if by_ext:
            count = sum(len(v) for v in by_ext.values())
            parts = ", ".join(
                f"{escape_text(ext)} {len(paths)}"
                for ext, paths in sorted(by_ext.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            )
            lines.append(f"    {count} with no loader for their type: {parts}")
            if len(by_ext) == 1 and count <= examples:
                lines += [f"      {escape_text(p)}" for p in next(iter(by_ext.values()))]
        lines += [f"    {escape_text(i['path'])}: {escape_text(i['reason'])}" for i in others]
    if report.failures:
        whole = sum(1 for f in report.failures if not f.get("partial"))
        partly = len(report.failures) - whole
        head = f"  {whole} failed" + (f", {partly} partly failed" if partly else "")
        lines.append(head + " (the others were indexed):")
        lines += [
            f"    {escape_text(f['path'])}: {escape_text(f['error'])}"
            + (" (the rest of the file was indexed)" if f.get("partial") else "")
            for f in report.failures
        ]
    return lines
