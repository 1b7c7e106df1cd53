"""Languages known to ``RecursiveCharacterTextSplitter.from_language`` and their separators.

``Language`` has the members and string values of LangChain's enum
(``Language("python")``, ``Language("js")``, ``Language("cpp")``, ...), and each
language splits on the same regex separators, tried in order.

Example:
    >>> get_separators_for_language(Language.GO)[:2]
    ['\\nfunc ', '\\nvar ']
"""

from __future__ import annotations

from enum import Enum

from ragkit.errors import ConfigurationError


class Language(str, Enum):
    """Programming and markup languages with their own separators."""

    CPP = "cpp"
    GO = "go"
    JAVA = "java"
    KOTLIN = "kotlin"
    JS = "js"
    TS = "ts"
    PHP = "php"
    PROTO = "proto"
    PYTHON = "python"
    R = "r"
    RST = "rst"
    RUBY = "ruby"
    RUST = "rust"
    SCALA = "scala"
    SWIFT = "swift"
    MARKDOWN = "markdown"
    LATEX = "latex"
    HTML = "html"
    SOL = "sol"
    CSHARP = "csharp"
    COBOL = "cobol"
    C = "c"
    LUA = "lua"
    PERL = "perl"
    HASKELL = "haskell"
    ELIXIR = "elixir"
    POWERSHELL = "powershell"
    VISUALBASIC6 = "visualbasic6"


_PLAIN = ["\n\n", "\n", " ", ""]


def _keywords(words: str, tail: list[str] = _PLAIN) -> list[str]:
    """Separators "\\n<word> " for each space-separated word, then ``tail``."""
    return [f"\n{w} " for w in words.split()] + tail


_VB_VIS = r"(?:Public|Private|Friend|Global|Static)\s+"

_SEPARATORS: dict[Language, list[str]] = {
    Language.CPP: _keywords("class void int float double if for while switch case"),
    Language.GO: _keywords("func var const type if for switch case"),
    Language.JAVA: _keywords("class public protected private static if for while switch case"),
    Language.KOTLIN: _keywords(
        "class public protected private internal companion fun val var if for while when else"
    ),
    Language.JS: _keywords("function const let var class if for while switch case default"),
    Language.TS: _keywords(
        "enum interface namespace type class function const let var if for while switch case default"
    ),
    Language.PHP: _keywords("function class if foreach while do switch case"),
    Language.PROTO: _keywords("message service enum option import syntax"),
    Language.PYTHON: ["\nclass ", "\ndef ", "\n\tdef ", *_PLAIN],
    Language.R: [
        "\nfunction ",
        "\nsetClass\\(",
        "\nsetMethod\\(",
        "\nsetGeneric\\(",
        *_keywords("if else for while repeat", []),
        "\nlibrary\\(",
        "\nrequire\\(",
        *_PLAIN,
    ],
    Language.RST: ["\n=+\n", "\n-+\n", "\n\\*+\n", "\n\n.. *\n\n", *_PLAIN],
    Language.RUBY: _keywords("def class if unless while for do begin rescue"),
    Language.ELIXIR: _keywords(
        "def defp defmodule defprotocol defmacro defmacrop if unless case cond with for do"
    ),
    Language.RUST: _keywords("fn const let if while for loop match"),
    Language.SCALA: _keywords("class object def val var if for while match case"),
    Language.SWIFT: _keywords("func class struct enum if for while do switch case"),
    Language.MARKDOWN: ["\n#{1,6} ", "```\n", "\n\\*\\*\\*+\n", "\n---+\n", "\n___+\n", *_PLAIN],
    Language.LATEX: [
        *(f"\n\\\\{w}{{" for w in ("chapter", "section", "subsection", "subsubsection")),
        *(
            f"\n\\\\begin{{{w}}}"
            for w in (
                "enumerate itemize description list quote quotation verse verbatim align".split()
            )
        ),
        "$$",
        "$",
        " ",
        "",
    ],
    Language.HTML: [
        *(
            f"<{t}"
            for t in (
                "body div p br li h1 h2 h3 h4 h5 h6 span table tr td th ul ol header footer nav "
                "head style script meta title"
            ).split()
        ),
        "",
    ],
    Language.CSHARP: _keywords(
        "interface enum delegate event class abstract public protected private static return "
        "if continue for foreach while switch break case else try throw finally catch"
    ),
    Language.SOL: [
        *_keywords(
            "pragma using contract interface library constructor type function event modifier "
            "error struct enum if for while",
            [],
        ),
        "\ndo while ",
        "\nassembly ",
        *_PLAIN,
    ],
    Language.COBOL: [
        *(
            f"\n{w}."
            for w in (
                "IDENTIFICATION DIVISION",
                "ENVIRONMENT DIVISION",
                "DATA DIVISION",
                "PROCEDURE DIVISION",
                "WORKING-STORAGE SECTION",
                "LINKAGE SECTION",
                "FILE SECTION",
                "INPUT-OUTPUT SECTION",
            )
        ),
        *_keywords("OPEN CLOSE READ WRITE IF ELSE MOVE PERFORM UNTIL VARYING ACCEPT DISPLAY", []),
        "\nSTOP RUN.",
        "\n",
        " ",
        "",
    ],
    Language.LUA: _keywords("local function if for while repeat"),
    Language.HASKELL: [
        "\nmain :: ",
        "\nmain = ",
        *_keywords("let in do where :: = data newtype type module import qualified", []),
        "\nimport qualified ",
        *_keywords("class instance case |", []),
        "\n= {",
        "\n, ",
        *_PLAIN,
    ],
    Language.POWERSHELL: _keywords(
        "function param if foreach for while switch class try catch finally"
    ),
    Language.VISUALBASIC6: [
        *(
            rf"\n(?!End\s){_VB_VIS}?{kind}\s+"
            for kind in ("Sub", "Function", r"Property\s+(?:Get|Let|Set)", "Type", "Enum")
        ),
        r"\n(?!End\s)If\s+",
        *(
            rf"\n{w}\s+"
            for w in ("ElseIf", "Else", r"Select\s+Case", "Case", "For", "Do", "While", "With")
        ),
        r"\n\n",
        r"\n",
        " ",
        "",
    ],
}
_SEPARATORS[Language.C] = _SEPARATORS[Language.CPP]


def get_separators_for_language(language: Language | str) -> list[str]:
    """The separators (regexes, tried in order) for ``language``.

    Raises:
        ConfigurationError: (a ``ValueError``) for an unknown language or one
            without separators (``Language.PERL``, as in LangChain).
    """
    try:
        lang = Language(language)
    except ValueError:
        raise ConfigurationError(
            f"Language {language!r} is not supported; choose one of {[m.value for m in Language]}"
        ) from None
    if lang not in _SEPARATORS:
        raise ConfigurationError(
            f"Language {lang.value!r} has no separators yet; pass separators= yourself"
        )
    return list(_SEPARATORS[lang])
