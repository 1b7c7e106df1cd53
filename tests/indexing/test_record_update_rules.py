"""The rules both record managers share (ragkit.indexing.record_manager): one group id per key,
an empty update does nothing, and times never go backwards, neither across calls nor behind a
record another writer stored. Run against SQLite and PostgreSQL alike."""

from __future__ import annotations

import uuid

import pytest

from ragkit.errors import IndexingError, InvalidInputError
from ragkit.indexing import SQLRecordManager


@pytest.fixture(params=["sqlite", "postgres"])
def pair(request: pytest.FixtureRequest, tmp_path):
    """Two managers of one namespace in one database (two writers)."""
    if request.param == "sqlite":
        url, extra = f"sqlite:///{tmp_path / 'records.sqlite'}", {}
    else:
        url, extra = request.getfixturevalue("pg_dsn"), {"schema": f"u_{uuid.uuid4().hex[:10]}"}
    first = SQLRecordManager("ns", db_url=url, **extra)
    first.create_schema()
    second = SQLRecordManager("ns", db_url=url, **extra)
    yield first, second
    first.close()
    second.close()


def test_one_group_id_per_key_or_nothing_is_written(pair) -> None:
    rm, _ = pair
    with pytest.raises(InvalidInputError, match="2 keys but 1 group_ids; pass one per key"):
        rm.update(["a", "b"], group_ids=["g"])
    assert rm.count() == 0
    rm.update(["a", "b"])
    assert rm.count() == 2 and rm.list_groups() == []
    rm.update([], group_ids=[])
    assert rm.count() == 2


def test_times_pass_every_stored_record(pair) -> None:
    first, second = pair
    first.update(["a"], group_ids=["g"])
    ahead = first.get_time() + 3600  # a writer whose clock runs an hour ahead stored this
    second.update(["b"], group_ids=["g"])
    second._last_time = ahead
    second.update(["c"], group_ids=["g"])
    assert second.list_keys(after=ahead - 1) == ["c"]
    later = first.get_time()  # first's own clock is behind: it still stamps after "c"
    assert later > ahead
    first.update(["d"])
    assert first.list_keys(after=ahead)[-1] == "d"
    with pytest.raises(IndexingError, match="clock went backwards"):
        first.update(["e"], time_at_least=first.get_time() + 3600)
    assert first.exists(["e"]) == [False]
