"""Routing: send a question to one of several chains.

- :func:`create_logical_router`: a model with structured output names the destination
  (``{"destination": ...}``, an enum of the route names, so a provider with JSON-schema
  output is held to them) and a :class:`~ragkit.core.RunnableBranch` runs that route.
- :class:`SemanticRouter`: the route whose description (or prompt text) is most similar
  to the question, by embedding similarity; no model call.

A route name the model makes up raises :class:`~ragkit.errors.RoutingError` listing the
routes.

Example:
    >>> from ragkit.embeddings import HashEmbeddings
    >>> from ragkit.core import RunnableLambda
    >>> router = SemanticRouter(HashEmbeddings(64), {
    ...     "tyres": (RunnableLambda(lambda q: "tyre chain"), "tyre pressure puncture inner tube"),
    ...     "brakes": (RunnableLambda(lambda q: "brake chain"), "brake pads rim disc squeal")})
    >>> router.route("my brake pads squeal"), router.invoke("puncture in the inner tube")
    ('brakes', 'tyre chain')
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, create_model

from ragkit.core.base import Runnable, coerce_to_runnable
from ragkit.core.branch import RunnableBranch
from ragkit.core.config import RunnableConfig
from ragkit.core.lambdas import RunnableLambda
from ragkit.embeddings.base import Embeddings
from ragkit.errors import ConfigurationError, OutputParserException, RoutingError
from ragkit.prompts import BasePromptTemplate, ChatPromptTemplate

ROUTER_SYSTEM = (
    "Route the user's question to the most relevant destination. The destinations are:\n"
    "{destinations}\nAnswer with the name of one destination."
)


def _question(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("question", "input", "query"):
            if key in value:
                return str(value[key])
        raise RoutingError(
            f"A router needs the question under 'question', 'input' or 'query'; got keys {sorted(value)}"
        )
    return str(value)


def _named_destination(text: str | None) -> Any:
    try:
        data = json.loads(text or "")
    except ValueError:
        return None
    return data.get("destination") if isinstance(data, dict) else None


def _unknown(name: Any, routes: Mapping[str, Any]) -> RoutingError:
    return RoutingError(
        f"The router chose {name!r}, which is not a route. The routes are: {', '.join(routes)}"
    )


def create_logical_router(
    llm: Any,
    routes: Mapping[str, Any],
    descriptions: Mapping[str, str] | None = None,
    prompt: Any = None,
) -> Runnable[Any, Any]:
    """A runnable that asks ``llm`` (via ``with_structured_output``) which route fits, then runs it.

    ``routes``: name -> runnable (functions and dicts are coerced); each receives the
    router's input unchanged. ``descriptions`` help the model choose (name -> text).
    ``prompt`` gets ``{question}`` and ``{destinations}``. The chosen name is also
    available alone from ``router.classifier``.
    """
    if not routes:
        raise ConfigurationError("create_logical_router needs at least one route")
    descriptions = dict(descriptions or {})
    unknown = sorted(set(descriptions) - set(routes))
    if unknown:
        raise ConfigurationError(f"descriptions name routes that do not exist: {unknown}")
    listing = "\n".join(
        f"- {name}" + (f": {descriptions[name]}" if name in descriptions else "") for name in routes
    )
    names = tuple(routes)
    destination: Any = Literal[names]  # an enum of the route names in the JSON schema
    schema = create_model(
        "RouteQuery",
        __doc__="Route a user query to the most relevant destination.",
        destination=(destination, Field(description=f"One of: {', '.join(names)}")),
    )
    prompt = prompt or ChatPromptTemplate.from_messages(
        [("system", ROUTER_SYSTEM), ("human", "{question}")]
    )
    choose = prompt.partial(destinations=listing) | llm.with_structured_output(schema)

    def resolve(name: Any) -> str | None:
        """The route ``name`` means, forgiving stray spaces and quotes; None if none."""
        if name in routes:
            return str(name)
        stripped = str(name).strip().strip("'\"").strip() if name is not None else None
        return stripped if stripped in routes else None

    def classify(value: Any, config: RunnableConfig) -> str:
        try:
            choice = choose.invoke({"question": _question(value)}, config)
        except OutputParserException as e:  # a destination outside the routes fails validation
            named = _named_destination(e.llm_output)
            if named is None:
                raise
            resolved = resolve(named)
            if resolved is None:
                raise _unknown(named, routes) from e
            return resolved
        name = (
            choice.get("destination")
            if isinstance(choice, dict)
            else getattr(choice, "destination", None)
        )
        resolved = resolve(name)
        if resolved is None:
            raise _unknown(name, routes)
        return resolved

    classifier = RunnableLambda(classify, name="RouteQuery")
    branches = [
        (
            RunnableLambda(lambda x, n=name: x["destination"] == n),
            RunnableLambda(lambda x: x["input"]) | coerce_to_runnable(route),
        )
        for name, route in routes.items()
    ]

    def no_route(x: dict[str, Any]) -> Any:
        raise _unknown(x["destination"], routes)

    branch = RunnableBranch(*branches, RunnableLambda(no_route))
    router = (
        RunnableLambda(
            lambda value, config: {"destination": classifier.invoke(value, config), "input": value},
            name="LogicalRouter",
        )
        | branch
    )
    router.classifier = classifier  # type: ignore[attr-defined]
    return router


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class SemanticRouter(Runnable[Any, Any]):
    """Runs the route whose text is most similar to the question (cosine of embeddings).

    Args:
        embeddings: the embedding model.
        routes: name -> ``(runnable, text)``, or name -> a prompt template (its template
            text is embedded and the prompt is the route, as in LangChain's guide).
        default: the route name used when no route scores at least ``threshold``.
        threshold: the lowest similarity accepted (``None``: the best route always wins).
    """

    def __init__(
        self,
        embeddings: Embeddings,
        routes: Mapping[str, Any],
        default: str | None = None,
        threshold: float | None = None,
    ) -> None:
        if not routes:
            raise ConfigurationError("SemanticRouter needs at least one route")
        self.routes: dict[str, Runnable[Any, Any]] = {}
        texts: list[str] = []
        for name, spec in routes.items():
            if isinstance(spec, tuple) and len(spec) == 2:
                runnable, text = spec
            elif isinstance(spec, BasePromptTemplate) and hasattr(spec, "template"):
                runnable, text = spec, spec.template
            else:
                raise ConfigurationError(
                    f"SemanticRouter route {name!r} must be (runnable, text) or a PromptTemplate"
                )
            self.routes[name] = coerce_to_runnable(runnable)
            texts.append(str(text))
        if default is not None and default not in self.routes:
            raise _unknown(default, self.routes)
        self.embeddings = embeddings
        self.default = default
        self.threshold = threshold
        self._vectors = embeddings.embed_documents(texts)

    def scores(self, question: str) -> dict[str, float]:
        """The similarity of ``question`` to every route."""
        query = self.embeddings.embed_query(question)
        return {name: _cosine(query, v) for name, v in zip(self.routes, self._vectors)}

    def route(self, value: Any) -> str:
        """The name of the route for ``value`` (a question or a dict holding one)."""
        scores = self.scores(_question(value))
        best = max(scores, key=lambda n: scores[n])
        if self.threshold is not None and scores[best] < self.threshold:
            if self.default is None:
                raise RoutingError(
                    f"No route scored at least threshold={self.threshold} (best: {best} "
                    f"{scores[best]:.3f}); the routes are: {', '.join(self.routes)}. Set default="
                )
            return self.default
        return best

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        def run(value: Any, cfg: RunnableConfig) -> Any:
            return self.routes[self.route(value)].invoke(value, cfg)

        return self._call_with_config(run, input, config)
