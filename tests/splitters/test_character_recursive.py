"""Character, recursive and language splitters: identical to langchain-text-splitters.

Differential tests on a generated corpus and on hypothesis-generated texts and
parameters, plus the deliberate differences (true ``start_index``; regex
separators with ``keep_separator=False``).
"""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document as LCDocument
from langchain_text_splitters import CharacterTextSplitter as LCCharacter
from langchain_text_splitters import Language as LCLanguage
from langchain_text_splitters import RecursiveCharacterTextSplitter as LCRecursive

from ragkit.documents import Document
from ragkit.splitters import CharacterTextSplitter, Language, RecursiveCharacterTextSplitter

from .corpus import corpus

logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)
logging.getLogger("ragkit.splitters").setLevel(logging.ERROR)

CORPUS = corpus()
ALL_TEXTS = [t for texts in CORPUS.values() for t in texts]

PARAMS = [
    {"chunk_size": 100, "chunk_overlap": 20},
    {"chunk_size": 37, "chunk_overlap": 0},
    {"chunk_size": 250, "chunk_overlap": 249},
    {"chunk_size": 64, "chunk_overlap": 16, "keep_separator": "end"},
    {"chunk_size": 64, "chunk_overlap": 16, "keep_separator": False},
    {"chunk_size": 80, "chunk_overlap": 30, "strip_whitespace": False},
    {"chunk_size": 3, "chunk_overlap": 1},
]


def _lc_docs(texts: list[str]) -> list[LCDocument]:
    return [
        LCDocument(page_content=t, metadata={"source": f"f{i}", "tags": ["a"]})
        for i, t in enumerate(texts)
    ]


def _docs(texts: list[str]) -> list[Document]:
    return [Document(t, metadata={"source": f"f{i}", "tags": ["a"]}) for i, t in enumerate(texts)]


def _same_documents(ours: list[Document], theirs: list[LCDocument]) -> None:
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]
    assert [d.metadata for d in ours] == [d.metadata for d in theirs]


@pytest.mark.parametrize(
    "params",
    # chunk_size=3 makes thousands of chunks (over 2 s in a make test run): make test only
    [pytest.param(p, marks=[pytest.mark.slow] if p["chunk_size"] < 10 else []) for p in PARAMS],
)
def test_recursive_matches_langchain_on_corpus(params: dict) -> None:
    ours, theirs = RecursiveCharacterTextSplitter(**params), LCRecursive(**params)
    for text in ALL_TEXTS:
        assert ours.split_text(text) == theirs.split_text(text)
    _same_documents(
        ours.split_documents(_docs(ALL_TEXTS)), theirs.split_documents(_lc_docs(ALL_TEXTS))
    )


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("separator", ["\n\n", "\n", " ", "", "e"])
def test_character_matches_langchain_on_corpus(params: dict, separator: str) -> None:
    ours = CharacterTextSplitter(separator=separator, **params)
    theirs = LCCharacter(separator=separator, **params)
    for text in CORPUS["prose"] + CORPUS["markdown"][:5]:
        assert ours.split_text(text) == theirs.split_text(text)


def _languages() -> list[LCLanguage]:
    out = []
    for lang in LCLanguage:
        try:
            LCRecursive.get_separators_for_language(lang)
        except ValueError:
            continue
        out.append(lang)
    return out


def test_language_enum_and_separators_match_langchain() -> None:
    assert [(m.name, m.value) for m in Language] == [(m.name, m.value) for m in LCLanguage]
    assert Language("js") is Language.JS and Language("visualbasic6") is Language.VISUALBASIC6
    for lang in _languages():
        assert RecursiveCharacterTextSplitter.get_separators_for_language(
            Language(lang.value)
        ) == LCRecursive.get_separators_for_language(lang)
    with pytest.raises(ValueError, match="perl"):
        RecursiveCharacterTextSplitter.get_separators_for_language(Language.PERL)
    with pytest.raises(ValueError, match="klingon"):
        RecursiveCharacterTextSplitter.from_language("klingon")


@pytest.mark.parametrize("lang", _languages(), ids=lambda lang: lang.value)
def test_from_language_matches_langchain(lang: LCLanguage) -> None:
    ours = RecursiveCharacterTextSplitter.from_language(
        Language(lang.value), chunk_size=120, chunk_overlap=30
    )
    theirs = LCRecursive.from_language(lang, chunk_size=120, chunk_overlap=30)
    texts = CORPUS["python"][:6] + CORPUS["markdown"][:4] + CORPUS["html"][:3]
    for text in texts:
        assert ours.split_text(text) == theirs.split_text(text)


# -- hypothesis ---------------------------------------------------------------------------

ALPHABET = st.sampled_from(list("ab ccd\n\n\n\t.x-#=*") + ["\u00e9", "\u3000", "class ", "def "])
TEXTS = st.lists(ALPHABET, max_size=300).map("".join)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(1, 60))
    return size, draw(st.integers(0, size))


COMMON = {
    "keep_separator": st.sampled_from([False, True, "start", "end"]),
    "strip_whitespace": st.booleans(),
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=TEXTS,
    size=sizes(),
    keep=COMMON["keep_separator"],
    strip=COMMON["strip_whitespace"],
    separators=st.none()
    | st.lists(
        st.sampled_from(["\n\n", "\n", " ", "", "c", "class ", "."]), min_size=1, max_size=5
    ),
)
def test_recursive_hypothesis(
    text: str, size: tuple[int, int], keep, strip: bool, separators
) -> None:
    params = {
        "chunk_size": size[0],
        "chunk_overlap": size[1],
        "keep_separator": keep,
        "strip_whitespace": strip,
    }
    ours = RecursiveCharacterTextSplitter(separators=separators, **params)
    theirs = LCRecursive(separators=separators, **params)
    assert ours.split_text(text) == theirs.split_text(text)


@settings(max_examples=300, deadline=None)
@given(
    text=TEXTS,
    size=sizes(),
    keep=COMMON["keep_separator"],
    strip=COMMON["strip_whitespace"],
    separator=st.sampled_from(["\n\n", "\n", " ", "", "c", "cc", "."]),
    regex=st.booleans(),
)
def test_character_hypothesis(
    text: str, size, keep, strip: bool, separator: str, regex: bool
) -> None:
    if regex and separator == ".":
        separator = r"\."  # a regex that matches exactly its literal text
    params = {
        "chunk_size": size[0],
        "chunk_overlap": size[1],
        "keep_separator": keep,
        "strip_whitespace": strip,
    }
    ours = CharacterTextSplitter(separator=separator, is_separator_regex=regex, **params)
    theirs = LCCharacter(separator=separator, is_separator_regex=regex, **params)
    if regex and separator == r"\." and not keep:
        # LangChain re-inserts the pattern text "\." (the regex bug); ours puts back ".", so
        # ours is LangChain with the literal separator "." (replacing "\." in LangChain's
        # chunks is not enough: the longer joiner also moves chunk boundaries, e.g. "aaa.a"
        # at chunk_size 5)
        literal = LCCharacter(separator=".", is_separator_regex=False, **params)
        assert ours.split_text(text) == literal.split_text(text)
    else:
        assert ours.split_text(text) == theirs.split_text(text)


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(["class A:\n", "def f():\n", "    x = 1\n", "\n", "# c\n", "y"]),
        max_size=40,
    ).map("".join),
    size=sizes(),
)
def test_python_language_hypothesis(text: str, size: tuple[int, int]) -> None:
    ours = RecursiveCharacterTextSplitter.from_language(
        Language.PYTHON, chunk_size=size[0], chunk_overlap=size[1]
    )
    theirs = LCRecursive.from_language(LCLanguage.PYTHON, chunk_size=size[0], chunk_overlap=size[1])
    assert ours.split_text(text) == theirs.split_text(text)


# -- start_index ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, size=sizes(), keep=st.sampled_from([True, "end"]))
def test_start_index_is_where_the_chunk_is(text: str, size: tuple[int, int], keep) -> None:
    params = {
        "chunk_size": size[0],
        "chunk_overlap": size[1],
        "keep_separator": keep,
        "add_start_index": True,
    }
    ours = RecursiveCharacterTextSplitter(**params).create_documents([text], [{"k": 1}])
    theirs = LCRecursive(**params).create_documents([text], [{"k": 1}])
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]
    previous = -1
    for ours_doc, their_doc in zip(ours, theirs):
        chunk, start = ours_doc.page_content, ours_doc.metadata["start_index"]
        assert text[start : start + len(chunk)] == chunk
        assert start >= previous
        previous = start
        if text.find(chunk) == text.rfind(chunk):  # the chunk occurs once
            assert start == their_doc.metadata["start_index"]
        assert {k: v for k, v in ours_doc.metadata.items() if k != "start_index"} == {"k": 1}


def test_start_index_correct_for_repeated_passages() -> None:
    text = "ab ab"
    params = {"chunk_size": 4, "chunk_overlap": 4, "add_start_index": True}
    ours = [
        (d.page_content, d.metadata["start_index"])
        for d in RecursiveCharacterTextSplitter(**params).create_documents([text])
    ]
    theirs = [
        (d.page_content, d.metadata["start_index"])
        for d in LCRecursive(**params).create_documents([text])
    ]
    assert ours == [("ab", 0), ("ab", 3)]
    assert theirs == [("ab", 0), ("ab", 0)]  # LangChain finds the first "ab" twice


def test_start_index_character_splitter_without_kept_separator() -> None:
    text = "alpha\n\n\n\nalpha beta\n\nalpha"
    docs = CharacterTextSplitter(
        separator="\n\n", chunk_size=12, chunk_overlap=0, add_start_index=True
    ).create_documents([text])
    got = [(d.page_content, d.metadata["start_index"]) for d in docs]
    assert got == [("alpha", 0), ("alpha beta", 9), ("alpha", 21)]


# -- the regex separator bug ----------------------------------------------------------------


def test_regex_separator_without_keep_reinserts_matched_text() -> None:
    text = "one\n\n\ntwo\nthree\n\nfour"
    params = {"separator": r"\n+", "is_separator_regex": True, "chunk_size": 12, "chunk_overlap": 0}
    theirs = LCCharacter(**params).split_text(text)
    ours = CharacterTextSplitter(**params).split_text(text)
    assert theirs == ["one\\n+two", "three\\n+four"]  # the raw pattern leaks into the chunks
    assert ours == ["one\n\n\ntwo", "three\n\nfour"]
    rec = RecursiveCharacterTextSplitter(
        separators=[r"\n+"],
        is_separator_regex=True,
        keep_separator=False,
        chunk_size=12,
        chunk_overlap=0,
    )
    assert rec.split_text(text) == ours


def test_lookaround_separator_joins_with_nothing() -> None:
    text = "A one. B two. C three."
    params = {
        "separator": r"(?=[ABC] )",
        "is_separator_regex": True,
        "chunk_size": 14,
        "chunk_overlap": 0,
    }
    assert CharacterTextSplitter(**params).split_text(text) == LCCharacter(**params).split_text(
        text
    )


# -- parameters, errors, runnable -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"chunk_size": 0}, "chunk_size"),
        ({"chunk_size": -5}, "chunk_size"),
        ({"chunk_size": 10, "chunk_overlap": -1}, "chunk_overlap"),
        ({"chunk_size": 10, "chunk_overlap": 11}, "chunk_overlap"),
    ],
)
def test_bad_sizes_raise_value_error_naming_the_parameter(kwargs: dict, name: str) -> None:
    for cls in (CharacterTextSplitter, RecursiveCharacterTextSplitter):
        with pytest.raises(ValueError, match=name):
            cls(**kwargs)


def test_defaults_match_langchain() -> None:
    ours, theirs = RecursiveCharacterTextSplitter(), LCRecursive()
    for attr in (
        "_chunk_size",
        "_chunk_overlap",
        "_keep_separator",
        "_add_start_index",
        "_strip_whitespace",
        "_separators",
        "_is_separator_regex",
    ):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    ours_c, theirs_c = CharacterTextSplitter(), LCCharacter()
    for attr in (
        "_chunk_size",
        "_chunk_overlap",
        "_keep_separator",
        "_separator",
        "_is_separator_regex",
    ):
        assert getattr(ours_c, attr) == getattr(theirs_c, attr), attr


def test_metadata_is_copied_not_shared() -> None:
    docs = RecursiveCharacterTextSplitter(chunk_size=3, chunk_overlap=0).create_documents(
        ["aa bb cc"], [{"tags": ["x"]}]
    )
    assert len(docs) == 3
    docs[0].metadata["tags"].append("y")
    assert docs[1].metadata["tags"] == ["x"]


def test_create_documents_rejects_mismatched_metadatas() -> None:
    with pytest.raises(ValueError, match="metadatas"):
        CharacterTextSplitter().create_documents(["a", "b"], [{}])


def test_runnable_invoke_stream_and_lazy_transform() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0)
    docs = [
        Document("aaa bbb", metadata={"source": "1"}),
        Document("ccc", metadata={"source": "2"}),
    ]
    out = splitter.invoke(docs)
    assert [(d.page_content, d.metadata["source"]) for d in out] == [
        ("aaa", "1"),
        ("bbb", "1"),
        ("ccc", "2"),
    ]
    assert [d.page_content for d in splitter.stream(docs)] == ["aaa", "bbb", "ccc"]
    assert [d.page_content for d in splitter.invoke("xx yy zz")] == ["xx yy", "zz"]
    assert splitter.transform_documents(docs) == out
    pulled = []

    def source():
        for d in docs:
            pulled.append(d.metadata["source"])
            yield d

    stream = splitter.transform(source())
    first = next(stream)
    assert first.page_content == "aaa" and pulled == ["1"]  # the second document is not read yet
    assert [d.page_content for d in stream] == ["bbb", "ccc"]
    chained = (splitter | (lambda chunks: len(chunks))).invoke(docs)
    assert chained == 3


async def _collect(splitter, docs):
    return (
        [d async for d in splitter.astream(docs)],
        await splitter.ainvoke(docs),
        await splitter.atransform_documents(docs),
    )


def test_async_surface() -> None:
    import asyncio

    splitter = CharacterTextSplitter(separator=" ", chunk_size=3, chunk_overlap=0)
    docs = [Document("ab cd")]
    streamed, invoked, transformed = asyncio.run(_collect(splitter, docs))
    assert [d.page_content for d in streamed] == [d.page_content for d in invoked] == ["ab", "cd"]
    assert transformed == invoked


def test_custom_length_function_matches_langchain() -> None:
    def words(text: str) -> int:
        return len(text.split())

    params = {"chunk_size": 7, "chunk_overlap": 2, "length_function": words}
    for text in CORPUS["prose"][:8]:
        assert RecursiveCharacterTextSplitter(**params).split_text(text) == LCRecursive(
            **params
        ).split_text(text)
        assert CharacterTextSplitter(separator=" ", **params).split_text(text) == LCCharacter(
            separator=" ", **params
        ).split_text(text)


def test_chunk_documents_are_ordinary_documents() -> None:
    import gc

    [chunk] = RecursiveCharacterTextSplitter(chunk_size=50, chunk_overlap=0).split_documents(
        [Document("hello world", metadata={"source": "s"})]
    )
    same = Document("hello world", metadata={"source": "s"})
    assert chunk == same and chunk.model_dump() == same.model_dump() and repr(chunk) == repr(same)
    assert Document.model_validate_json(chunk.model_dump_json()) == same
    copied = chunk.model_copy(update={"page_content": "x"})
    assert copied.page_content == "x" and chunk.page_content == "hello world"
    # the collector is paused only while a batch is built, and its state is restored
    assert gc.isenabled()
    gc.disable()
    try:
        RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0).split_documents([same])
        assert not gc.isenabled()
    finally:
        gc.enable()
    CharacterTextSplitter(chunk_size=5, chunk_overlap=0).create_documents(["a b"])
    assert gc.isenabled()
