"""PowerPointLoader: ``.pptx`` slides as Markdown, one Document per slide, with python-pptx.

A slide's title is a ``#`` heading; its other shapes follow top to bottom, left to
right (grouped shapes included): text as lines, tables as pipe tables (merged
cells repeat their text), charts as a ``Chart: <title>`` line and a pipe table of
their categories and series (see ``_pptx_chart``), and the speaker notes last, after
a ``Speaker notes:`` line (``include_notes=False`` leaves them out). Pictures carry
no text here; a chart whose part cannot be read is left out with a logged warning.

``mode="paged"`` (the default) gives one Document per slide with ``page_number``
and ``slide_number`` (1-based, the same value) and the slide's ``title`` in
metadata; ``mode="single"`` one Document per file (slides separated by a blank
line); ``mode="elements"`` one per shape with ``category`` (``Title``, ``Text``,
``Table``, ``Chart``, ``Notes``). The presentation's ``author`` and ``created`` are in
metadata when set. Needs ``pip install 'ragkit[documents]'``.

Example:
    >>> import os, tempfile, pptx
    >>> path = os.path.join(tempfile.mkdtemp(), "deck.pptx")
    >>> p = pptx.Presentation(); s = p.slides.add_slide(p.slide_layouts[1])
    >>> s.shapes.title.text = "Roadmap"; s.placeholders[1].text = "Q3: ship"
    >>> s.notes_slide.notes_text_frame.text = "say hello"; p.save(path)
    >>> doc = PowerPointLoader(path).load()[0]
    >>> print(doc.page_content)
    # Roadmap
    <BLANKLINE>
    Q3: ship
    <BLANKLINE>
    Speaker notes:
    say hello
    >>> doc.metadata["slide_number"], doc.metadata["title"]
    (1, 'Roadmap')
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Literal

from ragkit._io.sizes import DEFAULT_MAX_FILE_SIZE
from ragkit.documents import Document
from ragkit.loaders._file_loader import FileLoader
from ragkit.loaders._markdown import core_properties, heading, markdown_table
from ragkit.loaders._modes import check_mode
from ragkit.loaders._office import import_extra, load_office
from ragkit.loaders._pptx_chart import chart_text
from ragkit.loaders._zip_guard import DEFAULT_ZIP_LIMITS, ZipLimits
from ragkit.loaders.base import logger

Mode = Literal["paged", "single", "elements"]


class PowerPointLoader(FileLoader):
    """Load a ``.pptx`` (``mode="paged"``: one Document per slide; ``"single"``; ``"elements"``)."""

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Mode = "paged",
        *,
        include_notes: bool = True,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
        zip_limits: ZipLimits = DEFAULT_ZIP_LIMITS,
    ) -> None:
        super().__init__(file_path, max_file_size=max_file_size)
        check_mode("PowerPointLoader", mode, ("paged", "single", "elements"))
        self.mode = mode
        self.include_notes = include_notes
        self.zip_limits = zip_limits

    def lazy_load(self) -> Iterator[Document]:
        name = os.fspath(self.file_path)
        pptx = import_extra("pptx", "python-pptx")
        prs = load_office(
            name, "PowerPoint", pptx.Presentation, self.max_file_size, self.zip_limits
        )
        with self.reading("PowerPoint file"):  # python-pptx raises many kinds on damaged parts
            slides = [self._slide(slide) for slide in prs.slides]
            base: dict[str, Any] = {"source": str(self.file_path), **_properties(prs)}
        base["total_slides"] = len(slides)
        if self.mode == "single":
            text = "\n\n".join(_join(elements) for _, elements in slides if elements)
            yield Document(text, metadata=base)
            return
        for number, (title, elements) in enumerate(slides, start=1):
            meta = {**base, "page_number": number, "slide_number": number}
            if title:
                meta["title"] = title
            if self.mode == "paged":
                yield Document(_join(elements), metadata=meta)
                continue
            for category, text in elements:
                yield Document(text, metadata={**meta, "category": category})

    def _slide(self, slide: Any) -> tuple[str, list[tuple[str, str]]]:
        title_shape = slide.shapes.title
        title = (
            " ".join((title_shape.text_frame.text or "").split()) if title_shape is not None else ""
        )
        elements: list[tuple[str, str]] = []
        if title:
            elements.append(("Title", heading(title, 1)))
        for shape in _ordered(slide.shapes):
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            elements.extend(_shape_elements(shape))
        if self.include_notes and slide.has_notes_slide:
            frame = slide.notes_slide.notes_text_frame
            notes = frame.text.strip() if frame is not None else ""
            if notes:
                elements.append(("Notes", "Speaker notes:\n" + notes))
        return title, elements


class PptxLoader(PowerPointLoader):
    """Another name of :class:`PowerPointLoader`."""


class UnstructuredPowerPointLoader(PowerPointLoader):
    """LangChain's name: ``UnstructuredPowerPointLoader(file_path, mode="single")``.

    As LangChain, the default is one Document per file; ``mode="paged"`` gives one per
    slide and ``"elements"`` one per shape. The text is Markdown (a ``#`` title line,
    pipe tables, marked speaker notes) where Unstructured gives plain text.
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        mode: Mode = "single",
        *,
        include_notes: bool = True,
        max_file_size: int | None = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        super().__init__(file_path, mode, include_notes=include_notes, max_file_size=max_file_size)


def _join(elements: list[tuple[str, str]]) -> str:
    return "\n\n".join(text for _, text in elements)


def _ordered(shapes: Any) -> list[Any]:
    """Shapes top to bottom, then left to right (shapes without a position keep their place)."""
    listed = list(shapes)
    return sorted(
        listed,
        key=lambda s: (s.top if s.top is not None else 0, s.left if s.left is not None else 0),
    )


def _shape_elements(shape: Any) -> list[tuple[str, str]]:
    if getattr(shape, "shape_type", None) == 6 or hasattr(shape, "shapes"):  # a group
        out: list[tuple[str, str]] = []
        for inner in _ordered(shape.shapes):
            out.extend(_shape_elements(inner))
        return out
    if getattr(shape, "has_table", False) and shape.has_table:
        table = markdown_table(_table_rows(shape.table))
        return [("Table", table)] if table else []
    if getattr(shape, "has_chart", False) and shape.has_chart:
        return _chart_elements(shape)
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        lines = []
        for paragraph in shape.text_frame.paragraphs:
            text = " ".join(paragraph.text.split())
            if text:
                lines.append("  " * paragraph.level + text)
        return [("Text", "\n".join(lines))] if lines else []
    return []


def _chart_elements(shape: Any) -> list[tuple[str, str]]:
    try:
        text = chart_text(shape.chart)
    except Exception as e:  # a damaged chart part loses the chart, not the slide
        logger.warning("chart %r not read: %s: %s", shape.name, type(e).__name__, e)
        return []
    return [("Chart", text)] if text else []


def _table_rows(table: Any) -> list[list[str]]:
    """Rows of cell texts; a merged cell's text is repeated in every cell it spans."""
    n_rows, n_cols = len(table.rows), len(table.columns)
    grid = [["" for _ in range(n_cols)] for _ in range(n_rows)]
    for r in range(n_rows):
        for c in range(n_cols):
            cell = table.cell(r, c)
            if cell.is_spanned:
                continue
            text = cell.text
            height = cell.span_height if cell.is_merge_origin else 1
            width = cell.span_width if cell.is_merge_origin else 1
            for rr in range(r, min(r + height, n_rows)):
                for cc in range(c, min(c + width, n_cols)):
                    grid[rr][cc] = text
    return grid


def _properties(prs: Any) -> dict[str, Any]:
    props = prs.core_properties
    out: dict[str, Any] = core_properties(props, ("author", "created", "modified"))
    if props.title:
        out["presentation_title"] = props.title
    return out
