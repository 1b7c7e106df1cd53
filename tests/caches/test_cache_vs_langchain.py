"""Hit and miss: ragkit's InMemoryCache and LangChain's give the same replies to the same calls.

The same scripted replies go to LangChain's FakeListChatModel and ragkit's FakeChatModel; a
sequence of calls (repeats, another prompt, another stop, another model, a model with
cache=False, a cleared cache) must return the same replies on both sides.
"""

from __future__ import annotations

from langchain_core.caches import InMemoryCache as LCCache
from langchain_core.globals import set_llm_cache as lc_set
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from ragkit.caches import InMemoryCache
from ragkit.globals import set_llm_cache
from ragkit.models import FakeChatModel

REPLIES = ["r1", "r2", "r3", "r4", "r5", "r6"]
CALLS = [
    ("main", "hi", None),
    ("main", "hi", None),
    ("main", "bye", None),
    ("main", "hi", ["."]),
    ("main", "hi", ["."]),
    ("other", "hi", None),
    ("off", "hi", None),
    ("off", "hi", None),
    ("clear", None, None),
    ("main", "hi", None),
]


def run(models, cache):
    out = []
    for name, prompt, stop in CALLS:
        if name == "clear":
            cache.clear()
            continue
        out.append(models[name].invoke(prompt, stop=stop).content)
    return out


def test_same_replies_as_langchain_in_memory_cache():
    lc_cache = LCCache()
    lc_set(lc_cache)
    theirs = run(
        {
            "main": FakeListChatModel(responses=REPLIES),
            "other": FakeListChatModel(responses=["o1", "o2"]),
            "off": FakeListChatModel(responses=["f1", "f2"], cache=False),
        },
        lc_cache,
    )
    ours_cache = InMemoryCache()
    set_llm_cache(ours_cache)
    ours = run(
        {
            "main": FakeChatModel(REPLIES),
            "other": FakeChatModel(["o1", "o2"]),
            "off": FakeChatModel(["f1", "f2"], cache=False),
        },
        ours_cache,
    )
    assert ours == theirs
    assert theirs == ["r1", "r1", "r2", "r3", "r3", "o1", "f1", "f2", "r4"]


def test_maxsize_drops_the_oldest_entry_like_langchain():
    for cache in (LCCache(maxsize=2), InMemoryCache(maxsize=2)):
        from langchain_core.outputs import Generation as Theirs

        from ragkit.models.outputs import Generation as Ours

        gen = Ours if isinstance(cache, InMemoryCache) else Theirs
        for key in "abc":
            cache.update(key, "m", [gen(text=key)])
        assert cache.lookup("a", "m") is None and cache.lookup("c", "m")[0].text == "c"
