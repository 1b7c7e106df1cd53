"""Metadata comes back as it went in, of the same JSON types, from every store (issue 29, item 9).

PostgreSQL keeps metadata as JSONB, whose numbers are ``numeric``: ``1e16`` came back as the
integer ``10000000000000000`` and ``-0.0`` as ``0.0``, where FaissStore gave both back as they
were. Compared here through ``json.dumps`` (sorted keys), which tells ``1e16`` from
``10000000000000000`` and ``-0.0`` from ``0.0``; filters on such numbers keep working.
"""

from __future__ import annotations

import json
import uuid

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.integration

SPECIAL = [-0.0, 0.0, 1e16, -1e16, 1.5e300, 1e-300, 5e-324, 1.7976931348623157e308, 2.0**63, 1.0]
keys = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(SPECIAL)
    | st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        max_size=8,
    )
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
metadatas = st.dictionaries(keys, values, max_size=5)


def same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.fixture(params=["faiss", "pgvector"])
def store(request):
    from ragkit.stores import FaissStore, PGVectorStore

    if request.param == "faiss":
        yield FaissStore(dimension=4)
        return
    client = request.getfixturevalue("pg_client")
    store = PGVectorStore(
        connection=client, collection_name=f"m_{uuid.uuid4().hex[:12]}", embedding_length=4
    )
    yield store
    store.delete_collection()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(metadata=metadatas)
def test_metadata_keeps_its_values_and_types(store, metadata):
    doc_id = uuid.uuid4().hex
    vector = np.array([[1.0, 0.0, 0.0, 0.0]], dtype=np.float32)
    store.add_vectors(["text"], vector, [metadata], ids=[doc_id])
    (got,) = store.get_by_ids([doc_id])
    assert same(got.metadata, metadata), (got.metadata, metadata)
    hits = store.similarity_search_by_vector(vector[0], k=1)
    assert same(hits[0].metadata, metadata)
    store.delete([doc_id])


@pytest.mark.parametrize(
    ("value", "where", "matches"),
    [
        (1e16, {"$gt": 1e15}, True),
        (1e16, {"$lt": 1e15}, False),
        (1e16, {"$eq": 1e16}, True),
        (-0.0, {"$eq": 0}, True),
        (-0.0, {"$lt": 1}, True),
        (-0.0, {"$gt": 0}, False),
        (1e-300, {"$gt": 0}, True),
        (1.5e300, {"$gte": 1e300}, True),
        (2**70, {"$gt": 1e16}, True),
    ],
)
def test_filters_on_numbers_still_work(store, value, where, matches):
    vector = np.array([[1.0, 0.0, 0.0, 0.0]], dtype=np.float32)
    store.add_vectors(["a", "b"], np.vstack([vector, vector]), [{"x": value}, {"x": "text"}])
    hits = store.similarity_search_by_vector(vector[0], k=2, filter={"x": where})
    assert [same(h.metadata, {"x": value}) for h in hits] == ([True] if matches else [])
