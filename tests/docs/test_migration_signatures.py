"""Every name the migration table maps has LangChain's call signature, or a listed difference.

For each ``from langchain... import X`` / ``from ragkit... import Y`` pair of the import table
in docs/migration.md, the parameters of ragkit's ``Y`` are compared with LangChain's ``X``
(names, defaults, keyword-only markers; see :mod:`tests.docs.signatures`). Every difference
must be written in the guide's "Call signatures" list, where ``*: what`` lines cover every
name; a difference the list lacks fails the test, and so does a listed one that no longer
occurs (the list stays true both ways).
"""

from __future__ import annotations

import fnmatch
import warnings
from pathlib import Path

from tests.docs.signatures import differences, load, table_pairs

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "migration.md"


def listed() -> list[str]:
    """The lines of the guide's fenced list under "## Call signatures"."""
    section = GUIDE.read_text(encoding="utf-8").split("\n## Call signatures\n", 1)[1]
    block = section.split("```text\n", 1)[1].split("\n```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def found() -> list[str]:
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for their_module, their_name, our_module, our_name in table_pairs(GUIDE):
            label = our_name if our_name == their_name else f"{our_name} (LangChain {their_name})"
            theirs = load(their_module, their_name)
            ours = load(our_module, our_name)
            out += differences(label, theirs, ours)
    return out


def _covers(entry: str, line: str) -> bool:
    return fnmatch.fnmatchcase(line, entry) if entry.startswith("*:") else entry == line


def test_the_table_pairs_many_names():
    pairs = list(table_pairs(GUIDE))
    assert len(pairs) > 150
    assert (
        "langchain_classic.agents",
        "create_react_agent",
        "ragkit.agents.classic",
        "create_react_agent",
    ) in pairs


def test_every_signature_difference_is_listed_in_the_guide():
    entries = listed()
    lines = found()
    undocumented = [line for line in lines if not any(_covers(e, line) for e in entries)]
    assert undocumented == [], "add these to docs/migration.md, Call signatures"
    stale = [e for e in entries if not e.startswith("*:") and e not in lines]
    assert stale == [], "these differences no longer occur: remove them from the guide"


def test_the_check_sees_a_changed_default_and_a_keyword_only_marker():
    def theirs(a, b=1, *, c=2): ...

    def ours(a, b=1, c=2): ...

    assert differences("f", theirs, ours) == ["f: c keyword-only -> positional"]
    assert not any(_covers(e, "f: b default 1 -> 3") for e in listed())
