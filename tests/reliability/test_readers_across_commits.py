"""A long-lived reader keeps its snapshot while other processes commit, until it refreshes or closes;
no snapshot outlives its last reader once a newer one is committed.

Readers and writers are real separate processes: a reader process driven over stdin/stdout and
`ragkit index` runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from ragkit import Index
from tests.cli.helpers import env, ragkit

from .index_helpers import FILES, answers, build, write_docs

pytestmark = pytest.mark.integration

READER = textwrap.dedent(
    """
    import json, sys
    from ragkit import Index
    from tests.reliability.index_helpers import QUERIES

    idx = Index.open(sys.argv[1])

    def ask():
        out = {}
        for q in QUERIES:
            out["similarity:" + q] = [[d.page_content, d.metadata] for d in idx.search(q, k=3)]
            for kind in ("bm25", "hybrid"):
                docs = idx.retriever(kind, k=3).invoke(q)
                out[kind + ":" + q] = [[d.page_content, d.metadata] for d in docs]
        out["sources"] = idx.sources()
        info = idx.info()
        out["info"] = [info["chunks"], info["documents"], info["snapshot"]]
        return out

    for line in sys.stdin:
        command = line.strip()
        if command == "ask":
            reply = ask()
        elif command == "refresh":
            reply = {"moved": idx.refresh()}
        elif command == "close":
            idx.close()
            reply = {"closed": True}
        else:
            reply = {"error": command}
        print(json.dumps(reply), flush=True)
    """
)


class Reader:
    """A reader process holding one ``Index`` open."""

    def __init__(self, index_dir):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", READER, str(index_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )

    def send(self, command):
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read() if self.proc.stderr else "reader died"
        return json.loads(line)

    def stop(self):
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def normalise(data):
    """JSON round trip, so answers from this process compare with a reader process's."""
    return json.loads(json.dumps(data))


def snapshots(index_dir):
    return sorted(p.name for p in index_dir.iterdir() if p.name.startswith("snap-"))


def edit(docs, version):
    files = {
        name: f"{text} Revision {version} adds chain brakes tyres." for name, text in FILES.items()
    }
    files[f"extra{version}.txt"] = f"Extra note {version} on chain lubrication and brakes."
    write_docs(docs, files)


def commit(index_dir, docs):
    out = ragkit("index", docs, "--index", index_dir, "--json", check_json=True)
    assert out.returncode == 0, out.stderr
    assert out.data["committed"]


@pytest.mark.slow
def test_a_reader_keeps_its_snapshot_across_commits_by_other_processes(tmp_path):
    docs = write_docs(tmp_path / "docs")
    index_dir = tmp_path / "idx"
    build(index_dir, docs)
    first = snapshots(index_dir)
    reader = Reader(index_dir)
    try:
        before = reader.send("ask")
        assert before == normalise(answers(index_dir))
        for version in range(1, 4):  # any number of commits, each by another process
            edit(docs, version)
            commit(index_dir, docs)
            assert reader.send("ask") == before
            # the reader's snapshot and the newest one, nothing in between
            assert snapshots(index_dir) == [first[0], snapshots(index_dir)[-1]]
        newest = normalise(answers(index_dir))
        assert newest != before
        assert reader.send("refresh") == {"moved": True}
        assert reader.send("ask") == newest
        assert len(snapshots(index_dir)) == 1  # the old one went with its last reader
        assert reader.send("refresh") == {"moved": False}
    finally:
        reader.stop()


@pytest.mark.slow
def test_the_last_reader_to_close_prunes_and_a_commit_prunes_unread_snapshots(tmp_path):
    docs = write_docs(tmp_path / "docs")
    index_dir = tmp_path / "idx"
    build(index_dir, docs)
    one, two = Reader(index_dir), Reader(index_dir)
    try:
        first = one.send("ask")
        assert two.send("ask") == first
        pinned = snapshots(index_dir)
        edit(docs, 1)
        commit(index_dir, docs)
        assert len(snapshots(index_dir)) == 2
        assert one.send("close") == {"closed": True}
        assert snapshots(index_dir)[0] == pinned[0]  # the second reader still holds it
        assert two.send("ask") == first
        assert two.send("close") == {"closed": True}
        assert len(snapshots(index_dir)) == 1
    finally:
        one.stop()
        two.stop()
    edit(docs, 2)
    commit(index_dir, docs)
    assert len(snapshots(index_dir)) == 1  # nobody reads the previous one: pruned at the commit


def test_a_reader_that_ends_without_closing_releases_its_snapshot(tmp_path):
    docs = write_docs(tmp_path / "docs")
    index_dir = tmp_path / "idx"
    build(index_dir, docs)
    reader = Reader(index_dir)
    reader.send("ask")
    reader.proc.kill()  # kill -9: the OS drops its lock
    reader.proc.wait(timeout=30)
    edit(docs, 1)
    commit(index_dir, docs)
    assert len(snapshots(index_dir)) == 1


def test_in_process_reader_sees_its_own_writes_and_refresh(tmp_path):
    docs = write_docs(tmp_path / "docs")
    index_dir = tmp_path / "idx"
    idx = build(index_dir, docs)
    assert len(idx.search("chain", k=10)) == 4
    other = Index.open(index_dir)
    assert len(other.search("chain", k=10)) == 4
    write_docs(docs, {"new.txt": "A new note about chain wear."})
    idx.add([docs])
    assert len(idx.search("chain", k=10)) == 5  # the writer moves on to its own commit
    assert len(other.search("chain", k=10)) == 4  # the other reader keeps its snapshot
    assert other.refresh() and len(other.search("chain", k=10)) == 5
    with Index.open(index_dir) as third:
        assert len(third.search("chain", k=10)) == 5
    other.close()
    idx.close()
    assert len(snapshots(index_dir)) == 1
