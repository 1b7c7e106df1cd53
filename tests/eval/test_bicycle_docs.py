"""datasets/bicycle-care/docs/ is the dataset's corpus as Markdown files, one per record."""

from __future__ import annotations

from pathlib import Path

from ragkit.eval import load_beir

DATASET = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care"


def test_docs_folder_matches_the_corpus():
    data = load_beir(DATASET, prepend_title=False)
    files = {p.stem: p for p in (DATASET / "docs").glob("*.md")}
    assert set(files) == set(data.corpus)
    for doc_id, doc in data.corpus.items():
        text = files[doc_id].read_text(encoding="utf-8")
        assert text == f"# {doc.metadata['title']}\n\n{doc.page_content}\n", doc_id
