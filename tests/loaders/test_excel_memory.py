"""A 500,000-row sheet (written by XlsxWriter as Excel writes it: a ``<dimension>`` first, the
rows inline, shared strings) streams through ``ExcelLoader.lazy_load`` in bounded memory: the
peak of Python's traced allocations stays far under what the sheet's text alone needs."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
import xlsxwriter

from ragkit.loaders import ExcelLoader

ROWS = 500_000
PER_DOC = 10_000  # ExcelLoader's default max_rows_per_document


def write_sheet(path: Path, rows: int) -> Path:
    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    ws = wb.add_worksheet("Ledger")
    ws.write_row(0, 0, ["id", "note"])
    for i in range(rows):
        ws.write_row(i + 1, 0, [i, f"spoke tension {i % 977} checked"])
    wb.close()
    return path


@pytest.mark.slow
@pytest.mark.timeout(1800)  # tracemalloc makes openpyxl's row parser several times slower
def test_half_a_million_rows_stream_in_bounded_memory(tmp_path: Path) -> None:
    path = write_sheet(tmp_path / "ledger.xlsx", ROWS)
    list(ExcelLoader(write_sheet(tmp_path / "warm.xlsx", 10)).lazy_load())  # imports, untraced
    count = chars = 0
    spans = []
    last = ""
    tracemalloc.start()
    try:
        for doc in ExcelLoader(path).lazy_load():
            count += 1
            chars += len(doc.page_content)
            spans.append((doc.metadata["first_row"], doc.metadata["last_row"]))
            last = doc.page_content[-60:]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == ROWS // PER_DOC
    assert spans[0] == (2, PER_DOC + 1) and spans[-1] == (ROWS - PER_DOC + 2, ROWS + 1)
    assert all(b[0] == a[1] + 1 for a, b in zip(spans, spans[1:]))  # no row lost or repeated
    assert last.endswith(f"| {ROWS - 1} | spoke tension {(ROWS - 1) % 977} checked |")
    # every row's text went through (ASCII: one byte a character as a str), the peak far under it
    assert chars > 15_000_000
    assert peak < chars / 4, (peak, chars)
