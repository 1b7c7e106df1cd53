"""Analyzer: tokens, stopwords, stemming, languages, config round trip, bad settings."""

from __future__ import annotations

import threading

import pytest

from ragkit.errors import ConfigurationError
from ragkit.retrievers.analyzer import ENGLISH_STOPWORDS, Analyzer


def test_default_pipeline_lowercases_drops_stopwords_and_stems():
    assert Analyzer()("The Cyclists were RIDING their bicycles") == ["cyclist", "ride", "bicycl"]


def test_unicode_words_hyphens_and_apostrophes():
    a = Analyzer(stemmer=None, stopwords=None)
    assert a("Café crème, COVID-19") == ["café", "crème", "covid", "19"]
    # both apostrophe styles keep the word whole, so "don't" is removed as a stopword
    assert Analyzer()("don't don’t") == []


def test_stemming_conflates_inflections():
    a = Analyzer()
    assert a("lubricating")[0] == a("lubricated")[0] == a("lubricates")[0]


def test_only_stopwords_gives_no_terms():
    assert Analyzer()("the and of to was") == []


def test_custom_stopwords_and_no_stemmer():
    a = Analyzer(stopwords=["Bike"], stemmer=None)
    assert a("bike wheels") == ["wheels"]


def test_german_stemmer_and_language_code():
    a = Analyzer(language="de", stopwords=["die"])
    assert a.language == "german"
    assert a("Die Fahrräder") == ["fahrrad"]
    # no built-in German list: 'auto' keeps every word
    assert Analyzer(language="german").stopwords == frozenset()


def test_min_token_length():
    assert Analyzer(min_token_length=2, stemmer=None)("a b cd e") == ["cd"]


def test_config_round_trip_is_equal():
    a = Analyzer(language="french", stopwords=["le", "la"], min_token_length=2)
    b = Analyzer.from_config(a.to_config())
    assert a == b and b("les vélos rapides") == a("les vélos rapides")


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"language": "klingon"}, "klingon"),
        ({"stemmer": "porter2"}, "stemmer"),
        ({"stopwords": "english"}, "stopwords"),
        ({"token_pattern": "("}, "token_pattern"),
        ({"min_token_length": 0}, "min_token_length"),
    ],
)
def test_bad_settings_name_the_setting(kwargs, fragment):
    with pytest.raises(ConfigurationError, match=fragment):
        Analyzer(**kwargs)


def test_stopword_list_is_function_words():
    assert {"the", "and", "of", "is"} <= ENGLISH_STOPWORDS
    assert not {"bike", "brake", "protein"} & ENGLISH_STOPWORDS


def test_threads_share_one_analyzer():
    a = Analyzer()
    expected = a("spinning wheels rolling quickly")
    results: list[list[str]] = []

    def work():
        for _ in range(200):
            results.append(a("spinning wheels rolling quickly"))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 800 and all(r == expected for r in results)


def test_stem_memo_gives_same_stems_when_it_overflows(monkeypatch):
    import Stemmer

    import ragkit.retrievers.analyzer as mod

    monkeypatch.setattr(mod, "MEMO_SIZE", 5)
    a = Analyzer(stopwords=None)
    words = "running runner runs ran cycling cycled cycles bicycles brakes braking braked".split()
    reference = Stemmer.Stemmer("english").stemWords(words)
    for _ in range(3):
        assert a(" ".join(words)) == reference
    assert len(a._memo) <= 11
