"""`ragkit index --engine ray` shows its progress: with stderr not a terminal, periodic lines
carrying files done out of files found, chunks, and the embedding rate in chunks per second;
into a folder index (vectors through the driver) and into a PostgreSQL index (written by the
workers, counted from what they report)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.distributed.conftest import REPO
from tests.distributed.test_ray_faults import write_corpus

LINE = re.compile(
    r"^progress: (\w+): files (\d+)/(\d+)(?: \(\d+%\))?, chunks (\d+), "
    r"embedded (\d+) \(([\d.]+)/s\), elapsed \d+s"
)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["folder", "postgres"])
def test_the_command_prints_files_chunks_and_rate_lines(ray_cluster, tmp_path, where, request):
    docs = write_corpus(tmp_path / "docs", files=10)
    if where == "folder":
        index = str(tmp_path / "idx")
    else:
        index = f"{request.getfixturevalue('pg_dsn')}?collection="
        index += request.getfixturevalue("pg_collection")
    command = [sys.executable, "-m", "ragkit", "index", str(docs), "--index", index]
    command += ["--embedding", "hash-32", "--chunk-size", "200", "--chunk-overlap", "0"]
    command += ["--batch-size", "4", "--engine", "ray", "--address", ray_cluster, "--json"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAGKIT_PROGRESS_INTERVAL": "0.05"}
    cli = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=REPO)
    assert cli.returncode == 0, cli.stderr
    report = json.loads(cli.stdout)  # stdout stays one JSON document
    assert report["committed"] and report["num_added"] > 20
    lines = [line for line in cli.stderr.splitlines() if line.startswith("progress: ")]
    parsed = [LINE.match(line) for line in lines]
    assert lines and all(parsed), cli.stderr
    rows = [(m[1], int(m[2]), int(m[3]), int(m[4]), int(m[5]), float(m[6])) for m in parsed if m]
    during = [r for r in rows if r[0] == "index"]
    # more than the one line of the stage change: the periodic ones while files were indexed
    assert len(during) >= 2, cli.stderr
    assert all(total == 10 for _stage, _done, total, *_ in rows)
    assert [r[1] for r in during] == sorted(r[1] for r in during)  # files done only grow
    stage, done, _total, chunks, embedded, rate = rows[-1]
    assert stage == "save" and done == 10
    assert chunks == embedded == report["num_added"] and rate > 0
