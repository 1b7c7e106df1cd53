"""The graph of a runnable: nodes for its input, steps and output, drawn as Mermaid or ASCII.

``runnable.get_graph()`` returns a :class:`Graph` built as langchain-core builds it: a
sequence chains its steps' graphs, a parallel fans out from its input node and back in to
its output node, ``assign`` adds a ``Passthrough`` branch, bindings and configurable
wrappers show what they wrap. Nodes are named like LangChain's (``PromptInput``,
``ChatPromptTemplate``, ``Parallel<context,question>Output``), so ``draw_mermaid()`` gives
the same text as langchain-core; ``draw_ascii()`` lays the graph out with grandalf (the
``graph`` extra, as in LangChain) and draws boxes and edges.

Example:
    >>> from ragkit import RunnableLambda
    >>> graph = (RunnableLambda(lambda x: x, name="first") | (lambda x: x)).get_graph()
    >>> [node.name for node in graph.nodes.values()]
    ['first_input', 'first', 'Lambda', 'LambdaOutput']
    >>> sorted((e.source, e.target) for e in graph.reid().edges)
    [('Lambda', 'LambdaOutput'), ('first', 'Lambda'), ('first_input', 'first')]
"""

from __future__ import annotations

import inspect
import string
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel

from ragkit.errors import ConfigurationError

if TYPE_CHECKING:
    from collections.abc import Callable

    from ragkit.core.base import Runnable
    from ragkit.core.config import RunnableConfig


class Node(NamedTuple):
    """A node: a runnable, an input/output schema, or nothing (``data=None``)."""

    id: str
    name: str
    data: Any
    metadata: dict[str, Any] | None = None

    def copy(self, *, id: str | None = None, name: str | None = None) -> Node:
        return Node(
            id=id or self.id, name=name or self.name, data=self.data, metadata=self.metadata
        )


class Edge(NamedTuple):
    """An edge from ``source`` to ``target`` (node ids), with optional label ``data``."""

    source: str
    target: str
    data: Any = None
    conditional: bool = False

    def copy(self, *, source: str | None = None, target: str | None = None) -> Edge:
        return Edge(source or self.source, target or self.target, self.data, self.conditional)


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def node_name(node_id: str, data: Any) -> str:
    """A node's display name: the runnable's name or the schema's, without "Runnable"."""
    if data is None or not _is_uuid(node_id):
        return node_id
    from ragkit.core.base import Runnable

    text = data.get_name() if isinstance(data, Runnable) else getattr(data, "__name__", str(data))
    return text[len("Runnable") :] if text.startswith("Runnable") else text


@dataclass
class Graph:
    """Nodes by id and the edges between them."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.nodes)

    def add_node(
        self, data: Any, id: str | None = None, *, metadata: dict[str, Any] | None = None
    ) -> Node:
        if id is not None and id in self.nodes:
            raise ConfigurationError(f"the graph already has a node with id {id!r}")
        node_id = id or uuid.uuid4().hex
        node = Node(node_id, node_name(node_id, data), data, metadata)
        self.nodes[node_id] = node
        return node

    def remove_node(self, node: Node) -> None:
        self.nodes.pop(node.id)
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def add_edge(
        self, source: Node, target: Node, data: Any = None, conditional: bool = False
    ) -> Edge:
        for end in (source, target):
            if end.id not in self.nodes:
                raise ConfigurationError(f"node {end.id!r} ({end.name}) is not in the graph")
        edge = Edge(source.id, target.id, data, conditional)
        self.edges.append(edge)
        return edge

    def extend(self, graph: Graph, *, prefix: str = "") -> tuple[Node | None, Node | None]:
        """Add ``graph``'s nodes and edges (not connected); returns its first and last nodes."""
        if all(_is_uuid(n) for n in graph.nodes):
            prefix = ""

        def named(node_id: str) -> str:
            return f"{prefix}:{node_id}" if prefix else node_id

        self.nodes.update({named(k): v.copy(id=named(k)) for k, v in graph.nodes.items()})
        self.edges.extend(
            e.copy(source=named(e.source), target=named(e.target)) for e in graph.edges
        )
        first, last = graph.first_node(), graph.last_node()
        return (
            first.copy(id=named(first.id)) if first else None,
            last.copy(id=named(last.id)) if last else None,
        )

    def first_node(self, exclude: tuple[str, ...] = ()) -> Node | None:
        """The one node no edge leads to (None when there are several or none)."""
        targets = {e.target for e in self.edges if e.source not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in targets]
        return found[0] if len(found) == 1 else None

    def last_node(self, exclude: tuple[str, ...] = ()) -> Node | None:
        """The one node no edge leaves (None when there are several or none)."""
        sources = {e.source for e in self.edges if e.target not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in sources]
        return found[0] if len(found) == 1 else None

    def trim_first_node(self) -> None:
        """Remove the first node if another would then be first and it had one edge out."""
        self._trim_end(self.first_node, "source")

    def trim_last_node(self) -> None:
        """Remove the last node if another would then be last and it had one edge in."""
        self._trim_end(self.last_node, "target")

    def _trim_end(self, end: Callable[..., Node | None], side: str) -> None:
        """Remove the node ``end()`` finds if ``end`` would find another without it and it
        stands on the ``side`` (``source`` or ``target``) of exactly one edge."""
        node = end()
        if (
            node
            and end(exclude=(node.id,))
            and sum(1 for e in self.edges if getattr(e, side) == node.id) == 1
        ):
            self.remove_node(node)

    def reid(self) -> Graph:
        """The same graph with readable ids (names; ``name_1``, ``name_2`` when repeated)."""
        by_name: dict[str, list[str]] = defaultdict(list)
        for node in self.nodes.values():
            by_name[node.name].append(node.id)
        labels = {
            node_id: name if len(ids) == 1 else f"{name}_{i + 1}"
            for name, ids in by_name.items()
            for i, node_id in enumerate(ids)
        }

        def new_id(node_id: str) -> str:
            return labels[node_id] if _is_uuid(node_id) else node_id

        return Graph(
            nodes={new_id(k): n.copy(id=new_id(k)) for k, n in self.nodes.items()},
            edges=[e.copy(source=new_id(e.source), target=new_id(e.target)) for e in self.edges],
        )

    def to_json(self) -> dict[str, list[dict[str, Any]]]:
        """Nodes (id, name, kind) and edges, with readable ids."""
        graph = self.reid()
        nodes = []
        for node in graph.nodes.values():
            kind = (
                "schema"
                if inspect.isclass(node.data) and issubclass(node.data, BaseModel)
                else ("runnable" if node.data is not None else "unknown")
            )
            nodes.append({"id": node.id, "type": kind, "data": node.name})
        edges = []
        for edge in graph.edges:
            item: dict[str, Any] = {"source": edge.source, "target": edge.target}
            if edge.data is not None:
                item["data"] = edge.data
            if edge.conditional:
                item["conditional"] = True
            edges.append(item)
        return {"nodes": nodes, "edges": edges}

    def draw_mermaid(
        self,
        *,
        with_styles: bool = True,
        curve_style: str = "linear",
        wrap_label_n_words: int = 9,
    ) -> str:
        """The graph in Mermaid's flowchart syntax (langchain-core's layout and styles)."""
        from ragkit.core.graph_draw import mermaid

        return mermaid(
            self.reid(),
            with_styles=with_styles,
            curve_style=getattr(curve_style, "value", curve_style),
            wrap_label_n_words=wrap_label_n_words,
        )

    def draw_ascii(self) -> str:
        """The graph as boxes and lines of text (needs grandalf: ``pip install 'ragkit[graph]'``)."""
        from ragkit.core.graph_draw import ascii_art

        return ascii_art({n.id: n.name for n in self.nodes.values()}, self.edges)

    def print_ascii(self) -> None:
        print(self.draw_ascii())  # noqa: T201 - printing is the point


# -- graphs of runnables -------------------------------------------------------------------------
def _schema_node(graph: Graph, runnable: Runnable[Any, Any], which: str, config: Any) -> Node:
    try:
        schema = (
            runnable.get_input_schema(config)
            if which == "Input"
            else runnable.get_output_schema(config)
        )
    except TypeError:
        from pydantic import create_model

        schema = create_model(runnable.get_name(which))
    return graph.add_node(schema)


def single_node_graph(runnable: Runnable[Any, Any], config: RunnableConfig | None = None) -> Graph:
    """Input schema -> the runnable -> output schema."""
    graph = Graph()
    start = _schema_node(graph, runnable, "Input", config)
    node = graph.add_node(runnable, metadata=(config or {}).get("metadata") or None)
    end = _schema_node(graph, runnable, "Output", config)
    graph.add_edge(start, node)
    graph.add_edge(node, end)
    return graph


def sequence_graph(steps: list[Runnable[Any, Any]], config: RunnableConfig | None) -> Graph:
    """Each step's graph, chained (inner input and output nodes trimmed)."""
    graph = Graph()
    for i, step in enumerate(steps):
        previous = graph.last_node()
        part = step.get_graph(config)
        if i > 0:
            part.trim_first_node()
        if i < len(steps) - 1:
            part.trim_last_node()
        first, _ = graph.extend(part)
        if first is None:
            raise ConfigurationError(f"the graph of step {step.get_name()} has no first node")
        if previous is not None:
            graph.add_edge(previous, first)
    return graph


def fan_graph(
    runnable: Runnable[Any, Any], branches: list[Runnable[Any, Any]], config: RunnableConfig | None
) -> Graph:
    """The input node fanning out to each branch's graph and back in to the output node."""
    graph = Graph()
    start = _schema_node(graph, runnable, "Input", config)
    end = _schema_node(graph, runnable, "Output", config)
    for branch in branches:
        part = branch.get_graph()
        part.trim_first_node()
        part.trim_last_node()
        if not part:
            graph.add_edge(start, end)
            continue
        first, last = graph.extend(part)
        if first is None or last is None:
            raise ConfigurationError(f"the graph of branch {branch.get_name()} has no single end")
        graph.add_edge(start, first)
        graph.add_edge(last, end)
    return graph


def assign_graph(mapper: Runnable[Any, Any], config: RunnableConfig | None) -> Graph:
    """The mapper's graph plus a ``Passthrough`` branch from its input to its output."""
    from ragkit.core.passthrough import RunnablePassthrough

    graph = mapper.get_graph(config)
    start, end = graph.first_node(), graph.last_node()
    if start is not None and end is not None:
        passthrough = graph.add_node(RunnablePassthrough())
        graph.add_edge(start, passthrough)
        graph.add_edge(passthrough, end)
    return graph


def safe_id(label: str) -> str:
    """A Mermaid node id: letters, digits, ``_`` and ``-`` kept, other characters as ``\\hex``."""
    allowed = set(string.ascii_letters + string.digits + "_-")
    return "".join(c if c in allowed else "\\" + format(ord(c), "x") for c in label)


__all__ = ["Edge", "Graph", "Node", "safe_id"]
