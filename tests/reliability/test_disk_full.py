"""A full disk during indexing: a clear "disk is full" error, the previous index kept and still
answering, no destructive advice, and the same command succeeds once there is space.

The disk is a real, small tmpfs the test mounts (the suite runs as root, as `make test`'s
set-up already must for apt-get); where mounting is not permitted the test fails, saying why:
a disk-full path that was never exercised is not a pass.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from ragkit import Index
from ragkit.errors import DiskFullError
from tests.cli.helpers import ragkit

from .index_helpers import answers, build, write_docs

pytestmark = pytest.mark.integration


@pytest.fixture
def small_disk(tmp_path):
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    out = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        pytest.fail(
            f"the disk-full tests need a small tmpfs and mounting one failed "
            f"({out.stderr.strip() or out.returncode}); run the suite as root"
        )
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def fill(disk, leave):
    """Take all but ``leave`` bytes of the disk with a filler file."""
    filler = disk / "filler"
    with open(filler, "ab") as handle:
        while free_bytes(disk) > leave + 65536:
            handle.write(b"\0" * min(1 << 20, free_bytes(disk) - leave - 65536))
            handle.flush()
    return filler


def big_corpus(folder, files=40):
    texts = {
        f"note{i:03d}.txt": " ".join(f"word{(i * 31 + j) % 997} chain brakes" for j in range(400))
        for i in range(files)
    }
    return write_docs(folder, texts)


@pytest.mark.parametrize("leave", [32_768, 262_144, 1_048_576, 2_097_152, 3_145_728])
def test_a_full_disk_keeps_the_previous_index_and_says_so(small_disk, tmp_path, leave):
    docs = write_docs(tmp_path / "docs")
    index_dir = small_disk / "idx"
    build(index_dir, docs).close()
    before = answers(index_dir)
    more = big_corpus(tmp_path / "more")
    filler = fill(small_disk, leave)
    try:
        Index.open(index_dir).add([docs, more])
    except DiskFullError as err:
        text = str(err)
        assert "disk is full" in text and "delete" not in text.replace(str(tmp_path), "")
        assert str(index_dir) in text
        assert answers(index_dir) == before  # the previous index, still answering
        assert not [p for p in index_dir.iterdir() if p.name.startswith(".staging")]
    else:  # it fitted after all: then the new index is complete
        assert len(Index.open(index_dir).sources()) == 4 + 40
    filler.unlink()
    report = Index.open(index_dir).add([docs, more])
    assert report.ok and len(Index.open(index_dir).sources()) == 4 + 40


@pytest.mark.slow
def test_the_command_reports_a_full_disk_without_a_traceback(small_disk, tmp_path):
    docs = write_docs(tmp_path / "docs")
    index_dir = small_disk / "idx"
    out = ragkit("index", docs, "--index", index_dir, "--embedding", "hash")
    assert out.returncode == 0, out.stderr
    before = ragkit("query", index_dir, "chain checker", "--json", check_json=True).data
    more = big_corpus(tmp_path / "more")
    filler = fill(small_disk, 65_536)
    full = ragkit("index", docs, more, "--index", index_dir)
    assert full.returncode == 1
    assert "disk is full" in full.stderr and "Traceback" not in full.stderr
    assert "delete" not in full.stderr.replace(str(tmp_path), "")
    after = ragkit("query", index_dir, "chain checker", "--json", check_json=True).data
    assert after == before
    filler.unlink()
    assert ragkit("index", docs, more, "--index", index_dir).returncode == 0
