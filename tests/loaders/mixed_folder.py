"""The real mixed folder (datasets/mixed-docs) and how ragkit does on each of its files.

Used by tests/loaders/test_mixed_folder.py and benchmarks/documents.py. ragkit is driven
only through its public entry point, :class:`ragkit.loaders.DirectoryLoader`, one file at a
time with :meth:`~ragkit.loaders.DirectoryLoader.load_file` (the same loading as a folder
walk, without walking the folder for each file; every Document and every recorded failure
belongs to that file): whichever loader the registry picks for a type is what gets measured.

Example:
    >>> outcome = Outcome("a.pdf", "pdf", text="", reasons=["a.pdf is encrypted: pass password="])
    >>> outcome.accounted, outcome.has_text
    (True, False)
"""

from __future__ import annotations

import re
import runpy
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FETCH_SCRIPT = REPO / "datasets" / "mixed-docs" / "fetch.py"

# "ValueError", "KeyError: 'x'", "LoaderError: " and tracebacks are not reasons a user can act on
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\n\s+File \"")
_CLASS_PREFIX = re.compile(r"^\s*[A-Za-z_][\w.]*(Error|Exception|Warning)?\s*:\s*")
_WORD = re.compile(r"[^\W\d_]{3,}")
# raw MIME read as text: transport headers and base64 blocks are not a message's text
_TRANSPORT_HEADER = re.compile(
    r"^(Received|DKIM-Signature|Content-Transfer-Encoding|Return-Path|X-Mailer):", re.M | re.I
)
_BASE64_LINE = re.compile(r"^[A-Za-z0-9+/]{60,}={0,2}$", re.M)


def fetch_folder() -> tuple[Path, dict[str, str]]:
    """The folder (fetched if missing, from pinned sdists) and ``{file name: format}``."""
    script = runpy.run_path(str(FETCH_SCRIPT))
    return script["fetch"](), script["formats"]()


def readable(text: str) -> bool:
    """Whether ``text`` reads as text: a word of 3+ letters, ≥ 90% printable characters, and
    not raw MIME (transport headers such as ``Received:``, or 10+ lines of base64).
    """
    text = text.strip()
    if not text or not _WORD.search(text):
        return False
    if raw_mime(text):
        return False
    sample = text[:20000]
    printable = sum(1 for c in sample if c.isprintable() or c in "\n\r\t")
    return printable >= 0.9 * len(sample) and sample.count("\ufffd") < 0.01 * len(sample) + 1


def raw_mime(text: str) -> bool:
    """Whether ``text`` is an e-mail's source rather than its text."""
    return bool(_TRANSPORT_HEADER.search(text)) or len(_BASE64_LINE.findall(text, 0, 200000)) >= 10


def is_reason(message: str) -> bool:
    """A message a user can act on: words after any ``SomeError:`` prefix, no traceback."""
    if not message or _TRACEBACK.search(message):
        return False
    rest = _CLASS_PREFIX.sub("", message, count=1).strip()
    return len(rest) >= 10 and " " in rest and bool(_WORD.search(rest))


@dataclass
class Outcome:
    """What ragkit made of one file: its text (all Documents joined) and the reasons given."""

    name: str
    format: str
    text: str = ""
    documents: int = 0
    reasons: list[str] = field(default_factory=list)
    crash: str = ""  # an exception that escaped DirectoryLoader itself

    @property
    def has_text(self) -> bool:
        return readable(self.text)

    @property
    def accounted(self) -> bool:
        """Text, or a reason (and no escaped exception)."""
        return not self.crash and (self.has_text or any(is_reason(r) for r in self.reasons))

    @property
    def status(self) -> str:
        if self.crash:
            return "crash"
        if self.has_text:
            return "text"
        if self.accounted:
            return "reason"
        return "unaccounted"

    def describe(self) -> str:
        if self.crash:
            return f"exception escaped: {self.crash}"
        if self.reasons:
            return "; ".join(r.splitlines()[0][:160] for r in self.reasons[:2])
        if self.documents:
            what = "raw MIME, not the message's text" if raw_mime(self.text) else "no readable text"
            return f"{self.documents} Document(s), {what}: {self.text[:60]!r}"
        return "no Document and no reason"


def load_with_ragkit(folder: Path, name: str, fmt: str) -> Outcome:
    """Load one file of ``folder`` the way ``DirectoryLoader`` loads a folder (``load_file``)."""
    from ragkit.loaders import DirectoryLoader

    outcome = Outcome(name, fmt)
    loader = DirectoryLoader(folder, silent_errors=True)
    try:
        docs = loader.load_file(Path(folder) / name)
    except Exception as e:  # the folder loader itself must never raise for one file
        outcome.crash = f"{type(e).__name__}: {e}"
        return outcome
    outcome.documents = len(docs)
    outcome.text = "\n".join(d.page_content for d in docs)
    outcome.reasons = [f.reason for f in loader.errors]
    return outcome


def glob_escape(name: str) -> str:
    """``name`` as a glob that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def per_format(outcomes: list[Outcome]) -> dict[str, Counter[str]]:
    """``{format: Counter(status)}``, formats sorted by how many files they have."""
    table: dict[str, Counter[str]] = {}
    for o in outcomes:
        table.setdefault(o.format, Counter())[o.status] += 1
    return dict(sorted(table.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])))


def report(outcomes: list[Outcome]) -> str:
    """A Markdown report: per format, files with text / with a reason / neither; then the misses."""
    lines = [
        "| format | files | text | reason only | unaccounted |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for fmt, c in per_format(outcomes).items():
        lines.append(
            f"| {fmt} | {sum(c.values())} | {c['text']} | {c['reason']} | "
            f"{c['unaccounted'] + c['crash']} |"
        )
    total = Counter(o.status for o in outcomes)
    lines.append(
        f"| **all** | {len(outcomes)} | {total['text']} | {total['reason']} | "
        f"{total['unaccounted'] + total['crash']} |"
    )
    misses = [o for o in outcomes if not o.has_text]
    if misses:
        lines += ["", "Files without text:", ""]
        lines += [f"- `{o.name}` ({o.status}): {o.describe()}" for o in misses]
    return "\n".join(lines)
