"""The damaged-index matrix of issue 19.

Every file of an index directory x {delete, truncate, bit flip, random bytes, pickle payload,
deep nesting, a directory, a FIFO, a link to /dev/zero}, with the checksums left as they were
and rewritten to match the damage. Each case is read (open, similarity, BM25, hybrid, sources,
info) and written to (an incremental `add`, then read again). Required: no traceback (only
ragkit errors), no hang, no huge allocation, no pickle ever run, and no silently changed
answer: a query answers exactly as before or raises a clear error naming the damaged file.

One deliberate allowance: with the checksums rewritten to match, a bit flip can leave a file
that is valid and merely different (a letter of a stored text, a vector component). Such an
index is then consistent by every check and is served as it is; checksums catch accidents,
not forgeries. Those cases may answer differently but must still never traceback or hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.cli.helpers import REPO
from tests.reliability.matrix_cases import MARKER_ENV, MUTATIONS
from tests.reliability.matrix_worker import FILES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("matrix")
    marker = workdir / "UNPICKLED"
    env = {**os.environ, "PYTHONPATH": str(REPO), MARKER_ENV: str(marker)}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.reliability.matrix_worker", str(workdir)],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=REPO,
    )
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0, f"the worker died after {len(rows)} cases:\n{proc.stderr[-3000:]}"
    assert not marker.exists(), "a pickle payload was unpickled"
    return rows


@pytest.mark.slow
def test_every_case_ran(matrix):
    assert len(matrix) == len(FILES) * len(MUTATIONS) * 2


def describe(row, step):
    result = row[step]
    where = f"{row['file']} / {row['mutation']} / {'resealed' if row['sealed'] else 'intact'}"
    return f"{where} / {step}: {result['outcome']} {result.get('class', '')} {result.get('message', '')[:300]}"


def test_no_traceback_and_no_hang(matrix):
    bad = [
        describe(row, step)
        for row in matrix
        for step in ("read", "write")
        if row[step]["outcome"] in ("traceback", "timeout")
    ]
    assert not bad, "\n".join(bad)


def test_no_silently_changed_answers(matrix):
    allowed = {("bit_flip", True)}  # see the module docstring
    bad = [
        describe(row, step)
        for row in matrix
        for step in ("read", "write")
        if row[step]["outcome"] == "changed" and (row["mutation"], row["sealed"]) not in allowed
    ]
    assert not bad, "\n".join(bad)


def test_errors_name_the_damaged_file(matrix):
    bad = []
    for row in matrix:
        name = os.path.basename(row["file"])
        for step in ("read", "write"):
            result = row[step]
            if result["outcome"] == "error" and name not in result["message"]:
                bad.append(describe(row, step))
    assert not bad, "\n".join(bad)


def test_damage_the_checksums_see_is_always_reported(matrix):
    """With the checksums intact, damage to a checksummed file is never served."""
    checksummed = [f for f in FILES if f.startswith("SNAP/") and not f.endswith("READERS")]
    for row in matrix:
        if row["file"] in checksummed and not row["sealed"]:
            assert row["read"]["outcome"] == "error", describe(row, "read")
