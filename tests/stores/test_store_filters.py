"""Metadata filters: compiled predicates == a plain Python reference, on random metadata (hypothesis)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragkit.stores.filters import compile_filter

KEYS = ["a", "b", "c"]
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["x", "y", "z"]),
    st.floats(-3, 3, allow_nan=False),
)
metadata = st.dictionaries(st.sampled_from(KEYS), values, max_size=3)

FIELD_OPS = ["$eq", "$ne", "$neq", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]


def op_condition() -> st.SearchStrategy[dict[str, Any]]:
    scalar_op = st.tuples(st.sampled_from(FIELD_OPS[:7]), values)
    list_op = st.tuples(st.sampled_from(["$in", "$nin"]), st.lists(values, max_size=3))
    return st.lists(st.one_of(scalar_op, list_op), min_size=1, max_size=2).map(dict)


field_condition = st.one_of(values, st.lists(values, max_size=3), op_condition())
leaf = st.dictionaries(st.sampled_from(KEYS), field_condition, min_size=1, max_size=2)
filters = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.builds(lambda subs: {"$and": subs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda subs: {"$or": subs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda sub: {"$not": sub}, inner),
        st.builds(
            lambda a, b: {**a, **b},
            leaf,
            st.builds(lambda subs: {"$or": subs}, st.lists(inner, min_size=1, max_size=2)),
        ),
    ),
    max_leaves=6,
)


# -- the reference: a direct reading of the documented semantics ----------------------------
def ref_compare(op: str, have: Any, want: Any) -> bool:
    if op == "$eq":
        return have == want
    if op in ("$ne", "$neq"):
        return have != want
    if op == "$in":
        return have in want
    if op == "$nin":
        return have not in want
    fn = {"$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt, "$lte": operator.le}[op]
    try:
        return bool(fn(have, want))
    except TypeError:
        return False


def ref_matches(flt: dict[str, Any], meta: dict[str, Any]) -> bool:
    results = []
    for key, cond in flt.items():
        if key == "$and":
            results.append(all(ref_matches(f, meta) for f in cond))
        elif key == "$or":
            results.append(any(ref_matches(f, meta) for f in cond))
        elif key == "$not":
            results.append(not ref_matches(cond, meta))
        elif isinstance(cond, dict):
            results.append(all(ref_compare(op, meta.get(key), v) for op, v in cond.items()))
        elif isinstance(cond, list):
            results.append(meta.get(key) in cond)
        else:
            results.append(meta.get(key) == cond)
    return all(results)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(flt=filters, metas=st.lists(metadata, min_size=1, max_size=20))
def test_compiled_filter_matches_reference(
    flt: dict[str, Any], metas: list[dict[str, Any]]
) -> None:
    pred = compile_filter(flt)
    assert [pred(m) for m in metas] == [ref_matches(flt, m) for m in metas]


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(flt=filters, metas=st.lists(metadata, min_size=1, max_size=40), k=st.integers(1, 8))
def test_store_search_with_filter_equals_brute_force(
    kind, flt: dict[str, Any], metas: list[dict[str, Any]], k: int, unit_rows
) -> None:
    """Every store kind (PGVectorStore compiles the filter to SQL) matches the reference."""
    n = len(metas)
    vecs = unit_rows(n, 8, n)
    store = kind.new(None)
    store.add_vectors([f"t{i}" for i in range(n)], vecs, metas, ids=[str(i) for i in range(n)])
    q = unit_rows(1, 8, 999)[0]
    got = [
        int(d.id) for d in store.similarity_search_by_vector(q.tolist(), k=k, filter=flt, fetch_k=2)
    ]
    order = np.argsort(-(vecs.astype(np.float64) @ q), kind="stable")
    expected = [int(i) for i in order if ref_matches(flt, metas[i])][:k]
    assert got == expected


def test_operators_examples() -> None:
    meta = {"page": 3, "lang": "en", "tags": "x", "flag": None}
    cases = {
        "eq": ({"page": 3}, True),
        "eq_op": ({"page": {"$eq": 4}}, False),
        "ne": ({"lang": {"$ne": "fr"}}, True),
        "neq_alias": ({"lang": {"$neq": "en"}}, False),
        "gt": ({"page": {"$gt": 2}}, True),
        "range": ({"page": {"$gte": 3, "$lt": 4}}, True),
        "lte": ({"page": {"$lte": 2}}, False),
        "in": ({"lang": {"$in": ["en", "de"]}}, True),
        "nin": ({"lang": {"$nin": ["en"]}}, False),
        "list_is_in": ({"page": [1, 2, 3]}, True),
        "missing_is_none": ({"nope": None}, True),
        "missing_gt": ({"nope": {"$gt": 1}}, False),
        "incomparable": ({"lang": {"$gt": 1}}, False),
        "and": ({"$and": [{"page": 3}, {"lang": "en"}]}, True),
        "or": ({"$or": [{"page": 9}, {"lang": "fr"}]}, False),
        "not": ({"$not": {"page": 3}}, False),
        "combined": ({"lang": "en", "$or": [{"page": 1}, {"page": 3}]}, True),
    }
    for name, (flt, expected) in cases.items():
        assert compile_filter(flt)(meta) is expected, name


def test_callable_filter() -> None:
    assert compile_filter(lambda m: m.get("x", 0) > 1)({"x": 2}) is True
    assert compile_filter(lambda m: None)({}) is False


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ({"page": {"$gtt": 1}}, "'$gtt'"),
        ({"$xor": []}, "'$xor'"),
        ({"$gt": 3}, "field operators go inside a key"),
        ({"$and": {"a": 1}}, "non-empty list"),
        ({"$or": []}, "non-empty list"),
        ({"$not": [{"a": 1}]}, "one filter dict"),
        ({"a": {"$in": 3}}, "list of values"),
        ({"a": {}}, "empty operator dict"),
        ({"$and": [{"a": 1}, "b"]}, "expected a filter dict"),
        ("page == 3", "dict or a callable"),
    ],
)
def test_malformed_filters_raise_value_error(bad: Any, fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        compile_filter(bad)
    assert fragment in str(info.value)


def test_malformed_filter_raises_before_search(kind, unit_rows) -> None:
    store = kind.new(None)
    store.add_vectors(["a"], unit_rows(1, 4, 0))
    with pytest.raises(ValueError, match="unsupported operator"):
        store.similarity_search_by_vector(
            unit_rows(1, 4, 0)[0].tolist(), filter={"x": {"$like": "a"}}
        )
