"""Each embedding actor runs its model on the CPUs it holds, not one thread per core of the
node: two actors on the two-CPU test cluster get one thread each, one actor gets two, and a
model's explicit ``threads`` setting is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit import Index
from ragkit.errors import ConfigurationError
from ragkit.indexing import RayEngine

from .models import ThreadsEmbeddings


def corpus(root: Path) -> Path:
    root.mkdir()
    for i in range(8):
        (root / f"f{i}.txt").write_text(f"Document {i}. " + "words and more words " * 40)
    return root


def threads_seen(log: Path) -> dict[int, set[str]]:
    """{worker pid: the thread settings its model ran with}."""
    seen: dict[int, set[str]] = {}
    for line in Path(str(log) + ".threads").read_text().splitlines():
        pid, threads = line.split()
        seen.setdefault(int(pid), set()).add(threads)
    return seen


@pytest.mark.slow
@pytest.mark.parametrize(
    ("actors", "setting", "expected"), [(2, None, "1"), (1, None, "2"), (2, 3, "3")]
)
def test_actor_threads_follow_its_cpus(ray_cluster, tmp_path, actors, setting, expected):
    docs = corpus(tmp_path / "docs")
    log = tmp_path / "model.log"
    model = ThreadsEmbeddings(str(log), threads=setting)
    with Index.create(tmp_path / "idx", model, chunk_size=200, chunk_overlap=0) as idx:
        report = idx.add([docs], engine=RayEngine(actors=actors))
    assert report.num_added > 0
    seen = threads_seen(log)
    assert seen, "no actor embedded anything"
    assert all(values == {expected} for values in seen.values()), seen


def test_cpus_per_actor_is_checked():
    with pytest.raises(ConfigurationError, match="cpus_per_actor"):
        RayEngine(cpus_per_actor=0)
    assert RayEngine(actors=4, cpus_per_actor=0.5).actor_cpus([2.0]) == 0.5


@pytest.mark.slow
def test_actors_writing_postgres_size_threads_too(ray_cluster, pg_dsn, pg_collection, tmp_path):
    docs = corpus(tmp_path / "docs")
    log = tmp_path / "model.log"
    model = ThreadsEmbeddings(str(log))
    with Index.create(
        f"{pg_dsn}?collection={pg_collection}", model, chunk_size=200, chunk_overlap=0
    ) as idx:
        report = idx.add([docs], engine=RayEngine(actors=2))
    assert report.num_added > 0
    seen = threads_seen(log)
    assert seen and all(values == {"1"} for values in seen.values()), seen
