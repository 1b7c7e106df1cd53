"""The text of a PowerPoint chart: its title, then its data as a pipe table.

A chart's words live in its embedded part, not in a text frame: the title, the series
names and the category labels. ``chart_text`` writes them as a ``Chart: <title>`` line
followed by one table per plot (a bar and a line plot in one chart are two tables): a
``category`` column, then one column per series with its values as stored in the chart's
cache. Categories of several levels are joined with `` / `` (``2024 / Q1``); a plot
without categories (XY, bubble) numbers its points from 1 in a ``point`` column (their X
values are not read).

Example:
    >>> import os, tempfile, pptx
    >>> from pptx.chart.data import CategoryChartData
    >>> from pptx.enum.chart import XL_CHART_TYPE
    >>> from pptx.util import Inches
    >>> data = CategoryChartData()
    >>> data.categories = ["North", "South"]
    >>> _ = data.add_series("Sales", (12.5, 7))
    >>> prs = pptx.Presentation()
    >>> slide = prs.slides.add_slide(prs.slide_layouts[6])
    >>> frame = slide.shapes.add_chart(
    ...     XL_CHART_TYPE.COLUMN_CLUSTERED, 0, 0, Inches(4), Inches(3), data
    ... )
    >>> frame.chart.has_title = True
    >>> frame.chart.chart_title.text_frame.text = "Sales by region"
    >>> print(chart_text(frame.chart))
    Chart: Sales by region
    | category | Sales |
    | --- | --- |
    | North | 12.5 |
    | South | 7 |
"""

from __future__ import annotations

from typing import Any

from ragkit.loaders._markdown import markdown_table


def chart_text(chart: Any) -> str:
    """The chart's title line and a pipe table per plot ("" when it holds no words or values)."""
    title = _title(chart)
    tables = [t for t in (_plot_table(plot) for plot in chart.plots) if t]
    if not title and not tables:
        return ""
    return "\n".join([f"Chart: {title}" if title else "Chart:", *tables])


def _title(chart: Any) -> str:
    if not chart.has_title:
        return ""
    title = chart.chart_title
    if not title.has_text_frame:
        return ""
    return " ".join(title.text_frame.text.split())


def _plot_table(plot: Any) -> str:
    series = list(plot.series)
    if not series:
        return ""
    categories = [_category(labels) for labels in _labels(plot)]
    columns = [list(s.values) for s in series]
    length = max([len(categories), *(len(c) for c in columns)])
    first = "category" if categories else "point"
    header = [first, *(" ".join((s.name or "").split()) for s in series)]
    rows: list[list[Any]] = [header]
    for i in range(length):
        label = categories[i] if i < len(categories) else str(i + 1)
        rows.append([label, *(c[i] if i < len(c) else None for c in columns)])
    return markdown_table(rows)


def _labels(plot: Any) -> list[tuple[Any, ...]]:
    """Each category's labels, outer level first (``[]`` for a plot without categories)."""
    categories = plot.categories
    if categories.depth == 0:
        return []
    return list(categories.flattened_labels)


def _category(labels: tuple[Any, ...]) -> str:
    return " / ".join(" ".join(str(label).split()) for label in labels if label is not None)
