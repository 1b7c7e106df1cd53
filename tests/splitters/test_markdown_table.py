"""MarkdownTableTextSplitter: rows never cut, a split table repeats its header, starts exact."""

from __future__ import annotations

from pathlib import Path

from ragkit.splitters import MarkdownTableTextSplitter


def _table(rows: int) -> str:
    return "| id | name | note |\n| --- | --- | --- |\n" + "\n".join(
        f"| {i} | name {i} | some words about row {i} |" for i in range(rows)
    )


def test_rows_are_never_cut_and_every_table_chunk_has_the_header() -> None:
    text = "# Report\n\nIntro paragraph.\n\n" + _table(40) + "\n\n## After\n\nClosing words."
    splitter = MarkdownTableTextSplitter(chunk_size=300, chunk_overlap=0)
    chunks = splitter.split_text(text)
    rows_seen = []
    for chunk in chunks:
        assert len(chunk) <= 300
        for line in chunk.splitlines():
            if line.startswith("| ") and line[2].isdigit():
                rows_seen.append(int(line.split("|")[1]))
                assert line.endswith("|")
        if "| 1" in chunk or "| 2" in chunk:
            assert chunk.split("\n", 2)[:2] == ["| id | name | note |", "| --- | --- | --- |"] or (
                "| id | name | note |\n| --- | --- | --- |" in chunk
            )
    assert rows_seen == list(range(40))  # each row once, in order
    assert chunks[-1].endswith("Closing words.")


def test_a_row_longer_than_the_chunk_is_kept_whole() -> None:
    long_row = "| 1 | " + "x" * 200 + " |"
    text = "| a | b |\n| --- | --- |\n| 0 | short |\n" + long_row
    chunks = MarkdownTableTextSplitter(chunk_size=60, chunk_overlap=0).split_text(text)
    assert chunks == [
        "| a | b |\n| --- | --- |\n| 0 | short |",
        "| a | b |\n| --- | --- |\n" + long_row,
    ]


def test_start_index_points_at_the_first_row() -> None:
    text = "Intro.\n\n" + _table(10)
    docs = MarkdownTableTextSplitter(
        chunk_size=120, chunk_overlap=0, add_start_index=True
    ).create_documents([text])
    assert len(docs) > 3
    for doc in docs:
        rest = text[doc.metadata["start_index"] :]
        if rest.startswith(doc.page_content):  # the text itself, or a table's first chunk
            continue
        assert rest.startswith(doc.page_content.split("\n")[2])  # a continuation: its first row


def test_on_a_loaded_spreadsheet(tmp_path: Path) -> None:
    import openpyxl

    from ragkit.loaders import ExcelLoader

    path = tmp_path / "b.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Prices"
    ws.append(["item", "price"])
    for i in range(100):
        ws.append([f"item {i}", i])
    wb.save(str(path))
    chunks = MarkdownTableTextSplitter(chunk_size=200, chunk_overlap=0).split_documents(
        ExcelLoader(path).load()
    )
    assert len(chunks) > 5
    for chunk in chunks[1:]:
        assert chunk.page_content.startswith("| item | price |\n| --- | --- |\n| item ")
        assert chunk.metadata["sheet_name"] == "Prices"
