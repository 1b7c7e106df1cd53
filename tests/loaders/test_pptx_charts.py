"""PowerPoint charts as text: title, series names and categories, on decks written by python-pptx."""

from __future__ import annotations

import logging
import zipfile
from pathlib import Path

import pptx
import pytest
from pptx.chart.data import CategoryChartData, XyChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

from ragkit.loaders import DirectoryLoader, PowerPointLoader

SALES_TABLE = """| category | North | South |
| --- | --- | --- |
| Q1 | 12.5 | 7 |
| Q2 | 14 |  |"""


def _deck(path: Path) -> Path:
    """Slide 1: a title and a titled column chart (one value missing); slide 2: two charts."""
    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    slide.shapes.title.text = "Quarterly sales"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2"]
    data.add_series("North", (12.5, 14))
    data.add_series("South", (7, None))
    box = (Inches(1), Inches(2), Inches(6), Inches(4))
    chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, *box, data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Sales by region (kEUR)"

    second = prs.slides.add_slide(prs.slide_layouts[6])  # blank
    nested = CategoryChartData()
    year = nested.add_category("2024")
    year.add_sub_category("H1")
    year.add_sub_category("H2")
    nested.add_series("Riders", (310, 295))
    second.shapes.add_chart(XL_CHART_TYPE.LINE, *box, nested)
    points = XyChartData()
    series = points.add_series("Tyre pressure")
    series.add_data_point(1, 4.5)
    series.add_data_point(2, 4.2)
    group = second.shapes.add_group_shape()
    group.shapes.add_chart(XL_CHART_TYPE.XY_SCATTER, *box, points)
    prs.save(path)
    return path


def test_chart_title_series_and_categories_are_a_table(tmp_path: Path) -> None:
    first, second = PowerPointLoader(_deck(tmp_path / "charts.pptx")).load()
    assert first.page_content == (
        "# Quarterly sales\n\nChart: Sales by region (kEUR)\n" + SALES_TABLE
    )
    assert first.metadata["title"] == "Quarterly sales"
    # a chart without a title; categories of two levels; a scatter chart inside a group
    assert second.page_content == (
        "Chart:\n| category | Riders |\n| --- | --- |\n| 2024 / H1 | 310 |\n| 2024 / H2 | 295 |"
        "\n\nChart:\n| point | Tyre pressure |\n| --- | --- |\n| 1 | 4.5 |\n| 2 | 4.2 |"
    )


def test_chart_is_its_own_element(tmp_path: Path) -> None:
    docs = PowerPointLoader(_deck(tmp_path / "charts.pptx"), mode="elements").load()
    assert [d.metadata["category"] for d in docs] == ["Title", "Chart", "Chart", "Chart"]
    assert docs[1].page_content.endswith(SALES_TABLE)


def test_a_deck_of_only_a_chart_has_text_in_a_folder(tmp_path: Path) -> None:
    """Before charts were read, a deck holding only a chart loaded as no text at all."""
    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    data = CategoryChartData()
    data.categories = ["Mon", "Tue"]
    data.add_series("Repairs", (3, 5))
    slide.shapes.add_chart(XL_CHART_TYPE.PIE, 0, 0, Inches(4), Inches(3), data)
    prs.save(tmp_path / "pie.pptx")
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    [doc] = loader.load()
    assert "| Mon | 3 |" in doc.page_content and "Repairs" in doc.page_content
    assert loader.errors == []


def test_a_damaged_chart_loses_the_chart_not_the_slide(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = _deck(tmp_path / "good.pptx")
    bad = tmp_path / "bad.pptx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "ppt/charts/chart1.xml":  # the first slide's chart part
                data = data.replace(b"<c:v>12.5</c:v>", b"<c:v>twelve</c:v>")  # not a number
            dst.writestr(item, data)
    with caplog.at_level(logging.WARNING, logger="ragkit.loaders"):
        first, second = PowerPointLoader(bad).load()
    assert first.page_content == "# Quarterly sales"
    assert "Riders" in second.page_content
    assert "chart 'Chart 2' not read: ValueError: could not convert string to float" in caplog.text
