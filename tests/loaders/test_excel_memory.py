"""A 500,000-row sheet (written by XlsxWriter as Excel writes it: a ``<dimension>`` first, the
rows inline, shared strings) streams through ``ExcelLoader.lazy_load`` in bounded memory: the
process's peak resident memory while it reads grows far less than the sheet's text alone needs.

The reading runs in a child process that resets its own high-water mark
(``/proc/self/clear_refs``) after imports and a warm-up, so the peak it reports is the
reading's alone, C allocations (lxml's parser) included. (Measured with tracemalloc before,
which sees Python's allocations only and made the test run about 130 s instead of 25.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import xlsxwriter

ROWS = 500_000
PER_DOC = 10_000  # ExcelLoader's default max_rows_per_document

READ = r"""
import json, sys
from ragkit.loaders import ExcelLoader

def status(key):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(key + ":"))

list(ExcelLoader(sys.argv[2]).lazy_load())  # imports and first use, before the mark
base = status("VmRSS")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # the high-water mark starts again from here
count = chars = 0
spans, last = [], ""
for doc in ExcelLoader(sys.argv[1]).lazy_load():
    count += 1
    chars += len(doc.page_content)
    spans.append((doc.metadata["first_row"], doc.metadata["last_row"]))
    last = doc.page_content[-60:]
grew = (status("VmHWM") - base) * 1024
print(json.dumps({"count": count, "chars": chars, "spans": spans, "last": last, "grew": grew}))
"""


def write_sheet(path: Path, rows: int) -> Path:
    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    ws = wb.add_worksheet("Ledger")
    ws.write_row(0, 0, ["id", "note"])
    for i in range(rows):
        ws.write_row(i + 1, 0, [i, f"spoke tension {i % 977} checked"])
    wb.close()
    return path


@pytest.mark.slow
def test_half_a_million_rows_stream_in_bounded_memory(tmp_path: Path) -> None:
    path = write_sheet(tmp_path / "ledger.xlsx", ROWS)
    warm = write_sheet(tmp_path / "warm.xlsx", 10)
    run = subprocess.run(
        [sys.executable, "-c", READ, str(path), str(warm)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout)
    spans = [tuple(s) for s in got["spans"]]
    assert got["count"] == ROWS // PER_DOC
    assert spans[0] == (2, PER_DOC + 1) and spans[-1] == (ROWS - PER_DOC + 2, ROWS + 1)
    assert all(b[0] == a[1] + 1 for a, b in zip(spans, spans[1:]))  # no row lost or repeated
    assert got["last"].endswith(f"| {ROWS - 1} | spoke tension {(ROWS - 1) % 977} checked |")
    # every row's text went through (ASCII: one byte a character as a str), the peak far under it
    assert got["chars"] > 15_000_000
    assert 0 <= got["grew"] < got["chars"] / 4, (got["grew"], got["chars"])
