"""engine="ray" against engine="local" on the same folder, with the real local model: the
same chunk ids, contents, metadata, vectors (to float tolerance), answers and reports, for a
first build and for incremental edits and deletes; and the errors of a missing cluster."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from ragkit import Index
from ragkit.errors import ConfigurationError
from ragkit.indexing import RayEngine

WORDS = (
    "brake chain wheel pedal saddle gear spoke tyre frame fork derailleur cassette hub rim "
    "valve lever cable bearing crank sprocket"
).split()
QUERIES = ["worn brake pads", "chain and cassette", "tyre valve pressure", "frame and fork"]


def sentence(rng: np.random.Generator, n: int) -> str:
    return " ".join(rng.choice(WORDS, n)) + "."


def write_corpus(root):
    rng = np.random.default_rng(7)
    root.mkdir()
    for i in range(6):
        paras = [" ".join(sentence(rng, 12) for _ in range(4)) for _ in range(3)]
        (root / f"note{i}.txt").write_text("\n\n".join(paras))
    (root / "guide.md").write_text(
        "# Brakes\n\n" + sentence(rng, 40) + "\n\n## Chain\n\n" + sentence(rng, 40) + "\n"
    )
    (root / "parts.csv").write_text(
        "part,note\n" + "".join(f"p{i},{sentence(rng, 6)}\n" for i in range(20))
    )
    (root / "empty.txt").write_text("")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\n this is not a pdf at all")
    return root


def snapshot(index_dir):
    """{id: (text, metadata, vector)} of an index, and its answers to QUERIES."""
    with Index.open(index_dir) as idx:
        store = idx.vectorstore
        vectors = np.asarray(store.index.reconstruct_n(0, len(store.ids)))
        docs = store.get_by_ids(list(store.ids))
        rows = {
            i: (d.page_content, d.metadata, v)
            for i, d, v in zip(store.ids, docs, vectors, strict=True)
        }
        answers = [[d.id for d in idx.search(q, k=4)] for q in QUERIES]
    return rows, answers


def report_view(report):
    data = report.to_dict()
    data.pop("seconds", None)
    data["failures"] = sorted(
        (f["path"].split("/")[-1], f["code"], f["error"].replace(str(f["path"]), "<path>"))
        for f in data["failures"]
    )
    data["ignored"] = sorted((i["path"].split("/")[-1], i["code"]) for i in data["ignored"])
    return data


def assert_same_index(local_dir, ray_dir):
    local, local_answers = snapshot(local_dir)
    far, far_answers = snapshot(ray_dir)
    assert local and sorted(local) == sorted(far)  # the same chunk ids
    for key, (text, meta, vector) in local.items():
        other_text, other_meta, other_vector = far[key]
        assert text == other_text
        meta, other_meta = dict(meta), dict(other_meta)
        for m in (meta, other_meta):  # the source differs only by the folder's location
            m["source"] = m["source"].rsplit("/", 1)[-1]
        assert meta == other_meta
        # int8 quantisation depends a little on what a vector is batched with
        assert np.allclose(vector, other_vector, atol=2e-2), key
        assert float(np.dot(vector, other_vector)) > 0.999
    assert local_answers == far_answers


def build_both(tmp_path, docs, engine):
    results = []
    for name, chosen in (("local", "local"), ("ray", engine)):
        idx = Index.create(tmp_path / name, "local", chunk_size=300, chunk_overlap=30)
        results.append(idx.add([docs], engine=chosen))
    return results


@pytest.mark.slow
def test_ray_and_local_build_the_same_index_then_the_same_increments(ray_cluster, tmp_path):
    docs = write_corpus(tmp_path / "docs")
    engine = RayEngine(actors=2, batch_size=16)
    local, far = build_both(tmp_path, docs, engine)
    assert local.committed and far.committed and local.num_added > 20
    assert report_view(local) == report_view(far)
    assert [f[1] for f in report_view(far)["failures"]] == ["load-failed"]
    assert_same_index(tmp_path / "local", tmp_path / "ray")

    # edits, a delete and a new file: the same increments on both sides
    (docs / "note1.txt").write_text(
        (docs / "note1.txt").read_text() + "\n\nA new spoke tension note."
    )
    (docs / "note2.txt").unlink()
    (docs / "guide.md").write_text("# Tyres\n\nTyre pressure depends on the rider's weight.\n")
    (docs / "new.txt").write_text("Cassette cogs wear with the chain; replace them together.")
    reports = []
    for name, chosen in (("local", "local"), ("ray", engine)):
        with Index.open(tmp_path / name) as idx:
            reports.append(idx.add([docs], engine=chosen))
    local, far = reports
    assert local.num_deleted > 0 and local.num_added > 0 and local.files_unchanged == 5
    assert report_view(local) == report_view(far)
    assert_same_index(tmp_path / "local", tmp_path / "ray")


@pytest.mark.slow
def test_unchanged_files_are_not_read_by_the_cluster(ray_cluster, tmp_path):
    docs = write_corpus(tmp_path / "docs")
    idx = Index.create(tmp_path / "idx", "hash-32", chunk_size=300, chunk_overlap=30)
    first = idx.add([docs], engine=RayEngine())
    again = Index.open(tmp_path / "idx").add([docs], engine=RayEngine())
    # only broken.pdf (it failed) is read again, and fails again; empty.txt is never read
    assert first.committed and first.files_loaded == 8
    assert again.files_unchanged == 8 and again.files_loaded == 0
    assert [f["path"].rsplit("/", 1)[-1] for f in again.failures] == ["broken.pdf"]
    assert again.num_added == 0 and again.num_deleted == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_address_fails_within_seconds_naming_it(tmp_path):
    docs = write_corpus(tmp_path / "docs")
    address = f"127.0.0.1:{free_port()}"
    began = time.monotonic()
    with pytest.raises(ConfigurationError, match=address):
        RayEngine(address, connect_timeout=2).connect()
    assert time.monotonic() - began < 10
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragkit",
            "index",
            str(docs),
            "--index",
            str(tmp_path / "i"),
            "--embedding",
            "hash-32",
            "--engine",
            "ray",
            "--address",
            f"ray://{address}",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 2 and f"ray://{address}" in cli.stderr, cli.stderr
    assert not (tmp_path / "i" / "CURRENT").exists()


@pytest.mark.slow
def test_the_command_builds_with_ray_on_a_running_cluster(ray_cluster, tmp_path):
    docs = write_corpus(tmp_path / "docs")
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragkit",
            "index",
            str(docs),
            "--index",
            str(tmp_path / "i"),
            "--embedding",
            "hash-32",
            "--engine",
            "ray",
            "--address",
            ray_cluster,
            "--actors",
            "2",
            "--chunk-size",
            "300",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cli.returncode == 1, cli.stderr  # broken.pdf fails, the rest is indexed
    data = json.loads(cli.stdout)
    assert data["committed"] and data["num_added"] > 20, data
    assert data["files_loaded"] == 8, data
