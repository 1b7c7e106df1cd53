"""Logical routing (structured output over RunnableBranch) and semantic routing: each route,
and the clear error for a route that does not exist."""

from __future__ import annotations

import pytest

from ragkit.core import RunnableLambda
from ragkit.embeddings import HashEmbeddings
from ragkit.errors import ConfigurationError, OutputParserException, RoutingError
from ragkit.messages import AIMessage
from ragkit.models import FakeChatModel
from ragkit.prompts import PromptTemplate
from ragkit.techniques import SemanticRouter, create_logical_router


def choose(name: str) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": "RouteQuery", "args": {"destination": name}, "id": "r1"}]
    )


ROUTES = {
    "tyres": RunnableLambda(lambda x: f"tyre desk: {x['question']}"),
    "brakes": RunnableLambda(lambda x: f"brake desk: {x['question']}"),
    "ebikes": lambda x: f"e-bike desk: {x['question']}",
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_the_logical_router_takes_each_route(route):
    llm = FakeChatModel([choose(route)])
    router = create_logical_router(llm, ROUTES, descriptions={"ebikes": "motors and batteries"})
    out = router.invoke({"question": "help?"})
    label = {"tyres": "tyre", "brakes": "brake", "ebikes": "e-bike"}[route]
    assert out == f"{label} desk: help?"
    sent = llm.calls[0]
    assert "- ebikes: motors and batteries" in sent[0].content and sent[1].content == "help?"
    assert llm.call_kwargs[0]["tool_choice"] == "RouteQuery"


def test_a_made_up_route_is_a_clear_error_listing_the_routes():
    router = create_logical_router(FakeChatModel([choose("saddles")]), ROUTES)
    with pytest.raises(RoutingError) as info:
        router.invoke({"question": "saddle sore?"})
    message = str(info.value)
    assert "'saddles'" in message and "tyres, brakes, ebikes" in message
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("named", [" brakes ", "'brakes'", '"brakes"\n'])
def test_stray_spaces_and_quotes_around_a_route_name_are_forgiven(named):
    router = create_logical_router(FakeChatModel([choose(named)]), ROUTES)
    assert router.invoke({"question": "squeal"}) == "brake desk: squeal"


def test_a_reply_naming_no_destination_raises_with_the_models_text():
    no_call = create_logical_router(FakeChatModel(["brakes, I think"]), ROUTES)
    with pytest.raises(OutputParserException) as info:
        no_call.invoke({"question": "squeal"})
    assert info.value.llm_output == "brakes, I think"
    other_key = AIMessage(
        content="", tool_calls=[{"name": "RouteQuery", "args": {"where": "brakes"}, "id": "r1"}]
    )
    with pytest.raises(OutputParserException, match="destination") as info:
        create_logical_router(FakeChatModel([other_key]), ROUTES).invoke({"question": "squeal"})
    assert "brakes" in info.value.llm_output


def test_the_logical_router_needs_a_question_in_a_dict():
    llm = FakeChatModel([choose("tyres")])
    with pytest.raises(RoutingError, match="'question', 'input' or 'query'.*\\['text'\\]"):
        create_logical_router(llm, ROUTES).invoke({"text": "flat"})
    assert llm.call_count == 0  # refused before the model is asked
    routed = create_logical_router(FakeChatModel([choose("tyres")]), ROUTES)
    assert routed.invoke({"input": "flat", "question": "flat?"}) == "tyre desk: flat?"


def test_the_classifier_alone_names_the_route():
    router = create_logical_router(FakeChatModel([choose("brakes")]), ROUTES)
    assert router.classifier.invoke("squeal") == "brakes"


def test_router_setup_errors():
    with pytest.raises(ConfigurationError, match="at least one route"):
        create_logical_router(FakeChatModel(["x"]), {})
    with pytest.raises(ConfigurationError, match="do not exist"):
        create_logical_router(FakeChatModel(["x"]), ROUTES, descriptions={"gears": "x"})


PHYSICS = PromptTemplate.from_template("You are a physics professor. Question: {query}")
MATHS = PromptTemplate.from_template("You are a mathematician. Question: {query}")


def test_semantic_router_picks_each_route_by_similarity():
    router = SemanticRouter(
        HashEmbeddings(256),
        {
            "tyres": (lambda q: "T", "tyre pressure puncture inner tube valve"),
            "brakes": (lambda q: "B", "brake pads rim disc squeal stopping"),
            "gears": (lambda q: "G", "gears derailleur shifting cassette chain"),
        },
    )
    assert router.invoke("my inner tube has a puncture") == "T"
    assert router.invoke({"question": "disc brake pads squeal"}) == "B"
    assert router.route("derailleur shifting on the cassette") == "gears"
    scores = router.scores("valve")
    assert max(scores, key=scores.get) == "tyres"


def test_semantic_router_over_prompt_templates_as_in_the_guide():
    router = SemanticRouter(HashEmbeddings(256), {"physics": PHYSICS, "maths": MATHS})
    assert router.route("a physics professor question") == "physics"
    value = router.invoke({"query": "mathematician question"})
    assert value.to_string().startswith("You are a mathematician.")


def test_semantic_router_threshold_default_and_errors():
    routes = {"tyres": (lambda q: "T", "tyre pressure"), "brakes": (lambda q: "B", "brake pads")}
    strict = SemanticRouter(HashEmbeddings(256), routes, threshold=0.99)
    with pytest.raises(RoutingError, match="tyres, brakes"):
        strict.invoke("completely unrelated words")
    fallback = SemanticRouter(HashEmbeddings(256), routes, threshold=0.99, default="tyres")
    assert fallback.invoke("completely unrelated words") == "T"
    with pytest.raises(RoutingError, match="not a route"):
        SemanticRouter(HashEmbeddings(8), routes, default="gears")
    with pytest.raises(ConfigurationError):
        SemanticRouter(HashEmbeddings(8), {"x": "not a route spec"})
    with pytest.raises(RoutingError, match="'question'"):
        SemanticRouter(HashEmbeddings(8), routes).invoke({"text": "x"})
