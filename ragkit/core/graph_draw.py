"""Drawing a :class:`~ragkit.core.graph.Graph`: Mermaid text, and ASCII boxes laid out by grandalf.

Example:
    >>> from ragkit.core.graph import Edge
    >>> print(ascii_art({"a": "first", "b": "second"}, [Edge("a", "b")]))
     +-------+
     | first |
     +-------+
         *
         *
         *
    +--------+
    | second |
    +--------+
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragkit.core.graph import Edge, Graph

_STYLES = (
    ("default", "fill:#f2f0ff,line-height:1.2"),
    ("first", "fill-opacity:0"),
    ("last", "fill:#bfb6fc"),
)
_MARKDOWN = "*_`"
_LABEL_ESCAPES = {
    "[": "#91;",
    "]": "#93;",
    "(": "#40;",
    ")": "#41;",
    "{": "#123;",
    "}": "#125;",
    '"': "#quot;",
    "<": "#60;",
    ">": "#62;",
    "|": "#124;",
}


def _metadata_lines(metadata: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in metadata.items():
        scalars = (str, int, float, bool)
        if isinstance(value, scalars):
            text = str(value)
        elif isinstance(value, (list, tuple)) and all(isinstance(v, scalars) for v in value):
            text = ", ".join(str(v) for v in value)
        else:
            continue
        line = f"{key} = {text}".replace("#", "#35;")
        for char, entity in _LABEL_ESCAPES.items():
            line = line.replace(char, entity)
        lines.append(line)
    return lines


def mermaid(
    graph: Graph,
    *,
    with_styles: bool = True,
    curve_style: str = "linear",
    wrap_label_n_words: int = 9,
) -> str:
    """Mermaid flowchart text: front matter, nodes (first and last rounded), edges, styles."""
    from ragkit.core.graph import safe_id

    first_node, last_node = graph.first_node(), graph.last_node()
    first = first_node.id if first_node else None
    last = last_node.id if last_node else None

    out: list[str] = []
    if with_styles:
        out.append(f"---\nconfig:\n  flowchart:\n    curve: {curve_style}\n---\n")
    out.append("graph TD;\n")
    if with_styles:
        for node_id, node in graph.nodes.items():
            name = node.name.split(":")[-1]
            label = f"<p>{name}</p>" if name[:1] in _MARKDOWN and name[-1:] in _MARKDOWN else name
            extra = _metadata_lines(node.metadata or {})
            if extra:
                label += "<hr/><small><em>" + "\n".join(extra) + "</em></small>"
            if node_id == first:
                out.append(f"\t{safe_id(node_id)}([{label}]):::first\n")
            elif node_id == last:
                out.append(f"\t{safe_id(node_id)}([{label}]):::last\n")
            else:
                out.append(f"\t{safe_id(node_id)}({label})\n")
    for edge in graph.edges:
        if edge.data is None:
            arrow = " -.-> " if edge.conditional else " --> "
        else:
            words = str(edge.data).split()
            text = (
                "&nbsp<br>&nbsp".join(
                    " ".join(words[i : i + wrap_label_n_words])
                    for i in range(0, len(words), wrap_label_n_words)
                )
                if len(words) > wrap_label_n_words
                else str(edge.data)
            )
            arrow = (
                f" -. &nbsp;{text}&nbsp; .-> "
                if edge.conditional
                else f" -- &nbsp;{text}&nbsp; --> "
            )
        out.append(f"\t{safe_id(edge.source)}{arrow}{safe_id(edge.target)};\n")
    if with_styles:
        out.extend(f"\tclassDef {name} {style}\n" for name, style in _STYLES)
    return "".join(out)


# -- ASCII ----------------------------------------------------------------------------------------
class _Box:
    """What grandalf lays out: a box as wide as its label and three lines high."""

    def __init__(self, label: str) -> None:
        self.w = len(label) + 4
        self.h = 3
        self.xy: tuple[float, float] = (0.0, 0.0)


def _layout(names: dict[str, str], edges: Sequence[Edge]) -> list[dict[str, tuple[int, int, int]]]:
    """Per connected component: node id -> (left column, top row, width), rows from 0."""
    try:
        from grandalf.graphs import Edge as GEdge
        from grandalf.graphs import Graph as GGraph
        from grandalf.graphs import Vertex
        from grandalf.layouts import SugiyamaLayout
    except ImportError:  # pragma: no cover - depends on the environment
        from ragkit.errors import ConfigurationError

        raise ConfigurationError(
            "draw_ascii needs grandalf (as in LangChain): pip install 'ragkit[graph]'"
        ) from None
    vertices = {node_id: Vertex(node_id) for node_id in names}
    for node_id, vertex in vertices.items():
        vertex.view = _Box(names[node_id])
    links = [GEdge(vertices[e.source], vertices[e.target]) for e in edges]
    components = []
    for component in GGraph(list(vertices.values()), links).C:
        layout = SugiyamaLayout(component)
        layout.xspace, layout.yspace = 4, 3
        roots = [v for v in component.sV if not v.e_in()]
        layout.init_all(roots=roots or None, optimize=True)
        layout.draw()
        placed = {}
        for vertex in component.sV:
            box = vertex.view
            x, y = box.xy
            placed[vertex.data] = (round(x - box.w / 2), round(y - box.h / 2), box.w)
        left = min(x for x, _, _ in placed.values())
        top = min(y for _, y, _ in placed.values())
        components.append({k: (x - left, y - top, w) for k, (x, y, w) in placed.items()})
    return components


def ascii_art(names: dict[str, str], edges: Sequence[Edge]) -> str:
    """Boxes for the nodes and ``*`` lines for the edges, top to bottom."""
    if not names:
        return ""
    blocks = []
    for placed in _layout(names, edges):
        width = max(x + w for x, _, w in placed.values()) + 1
        height = max(y for _, y, _ in placed.values()) + 3
        canvas = [[" "] * width for _ in range(height)]
        for edge in edges:
            if edge.source in placed and edge.target in placed:
                _line(canvas, placed[edge.source], placed[edge.target])
        for node_id, (x, y, w) in placed.items():
            label = names[node_id]
            rows = ["+" + "-" * (w - 2) + "+", "| " + label + " |", "+" + "-" * (w - 2) + "+"]
            for dy, row in enumerate(rows):
                canvas[y + dy][x : x + w] = list(row)
        blocks.append("\n".join("".join(row).rstrip() for row in canvas))
    return "\n\n".join(blocks)


def _line(
    canvas: list[list[str]], source: tuple[int, int, int], target: tuple[int, int, int]
) -> None:
    """``*`` from under the source box to above the target box (or the other way up)."""
    sx, sy, sw = source
    tx, ty, tw = target
    x0, x1 = sx + sw // 2, tx + tw // 2
    y0, y1 = (sy + 3, ty - 1) if ty > sy else (sy - 1, ty + 3)
    steps = max(abs(x1 - x0), abs(y1 - y0))
    for i in range(steps + 1):
        x = round(x0 + (x1 - x0) * i / steps) if steps else x0
        y = round(y0 + (y1 - y0) * i / steps) if steps else y0
        if 0 <= y < len(canvas) and 0 <= x < len(canvas[y]) and canvas[y][x] == " ":
            canvas[y][x] = "*"


__all__ = ["ascii_art", "mermaid"]
