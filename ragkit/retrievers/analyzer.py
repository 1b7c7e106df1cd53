"""Analyzer: the text-to-terms pipeline used by BM25 (lowercase, word tokens, stopwords, stemming).

Text is lowercased, split into unicode word tokens (``\\w+``, apostrophes kept
inside words, so ``"COVID-19"`` gives ``covid`` and ``19`` and ``"don't"`` stays one word), tokens on the stopword list are dropped and the
rest are reduced to their Snowball stem (PyStemmer). The language picks the
stemmer and, for English, the built-in stopword list; other languages take
their stopwords from the caller.

Example:
    >>> analyzer = Analyzer()
    >>> analyzer("The cyclists were riding their bicycles")
    ['cyclist', 'ride', 'bicycl']
    >>> Analyzer(stemmer=None, stopwords=None)("The cyclists")
    ['the', 'cyclists']
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Any

from ragkit.errors import ConfigurationError

# Function words that carry no topical signal in English retrieval.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """
a about above after again against all am an and any are aren't as at
be because been before being below between both but by
can cannot could couldn't did didn't do does doesn't doing don't down during
each either few for from further had hadn't has hasn't have haven't having he her here hers
herself him himself his how i if in into is isn't it it's its itself just
me more most mustn't my myself neither no nor not now of off on once only or other ought our ours
ourselves out over own same shan't she should shouldn't so some such than that the their
theirs them themselves then there these they this those through to too under until up
upon us very was wasn't we were weren't what when where which while who whom why will with
won't would wouldn't you your yours yourself yourselves
""".split()
)

BUILTIN_STOPWORDS: dict[str, frozenset[str]] = {
    "english": ENGLISH_STOPWORDS,
    "en": ENGLISH_STOPWORDS,
}
_LANGUAGE_ALIASES = {
    "en": "english",
    "de": "german",
    "fr": "french",
    "es": "spanish",
    "it": "italian",
    "nl": "dutch",
    "pt": "portuguese",
    "ru": "russian",
    "sv": "swedish",
    "fi": "finnish",
    "da": "danish",
    "no": "norwegian",
}
MEMO_SIZE = 2_000_000  # distinct words whose stems are remembered (cleared when full)
DEFAULT_TOKEN_PATTERN = r"\w+(?:'\w+)*"


def _stemmer_algorithms() -> list[str]:
    import Stemmer

    return list(Stemmer.algorithms())


class Analyzer:
    """Turns text into index terms; callable, thread-safe and serialisable with :meth:`to_config`.

    Args:
        language: Snowball language for the stemmer (``"english"``, ``"german"``, ``"french"``, ... or
            a two-letter code). Also picks the built-in stopword list when ``stopwords="auto"``.
        stopwords: ``"auto"`` (the built-in list for ``language``; English has one, other languages
            get none), ``None`` (keep every token) or an iterable of words to drop (lowercased).
        stemmer: ``"snowball"`` (default) or ``None`` for no stemming.
        lowercase: Lowercase text before tokenizing.
        token_pattern: Regular expression whose matches are the tokens.
        min_token_length: Drop tokens shorter than this (after stopword removal, before stemming).
    """

    def __init__(
        self,
        language: str = "english",
        stopwords: str | Iterable[str] | None = "auto",
        stemmer: str | None = "snowball",
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        min_token_length: int = 1,
    ) -> None:
        self.language = _LANGUAGE_ALIASES.get(language.lower(), language.lower())
        if stemmer not in ("snowball", None):
            raise ConfigurationError(
                f"Analyzer stemmer must be 'snowball' or None, got {stemmer!r}"
            )
        if stemmer == "snowball" and self.language not in _stemmer_algorithms():
            raise ConfigurationError(
                f"Analyzer language {language!r} has no Snowball stemmer; use one of "
                f"{', '.join(_stemmer_algorithms())} or pass stemmer=None"
            )
        if isinstance(stopwords, str):
            if stopwords != "auto":
                raise ConfigurationError(
                    f"Analyzer stopwords must be 'auto', None or a list of words, got the string {stopwords!r}"
                )
            self.stopwords: frozenset[str] = BUILTIN_STOPWORDS.get(self.language, frozenset())
            self._stopwords_setting: Any = "auto"
        elif stopwords is None:
            self.stopwords = frozenset()
            self._stopwords_setting = None
        else:
            self.stopwords = frozenset(w.lower() if lowercase else w for w in stopwords)
            self._stopwords_setting = sorted(self.stopwords)
        if min_token_length < 1:
            raise ConfigurationError(
                f"Analyzer min_token_length must be >= 1, got {min_token_length}"
            )
        try:
            self._pattern = re.compile(token_pattern, re.UNICODE)
        except re.error as err:
            raise ConfigurationError(
                f"Analyzer token_pattern {token_pattern!r} is not a valid regex: {err}"
            ) from err
        self.stemmer = stemmer
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.min_token_length = min_token_length
        self._local = threading.local()  # PyStemmer objects must not be shared between threads
        self._memo: dict[str, str] = {}  # word -> stem; each distinct word is stemmed once

    def _stem_words(self) -> Any:
        stem = getattr(self._local, "stem", None)
        if stem is None:
            import Stemmer

            stem = Stemmer.Stemmer(self.language).stemWords
            self._local.stem = stem
        return stem

    def tokenize(self, text: str) -> list[str]:
        """Tokens after lowercasing, stopword removal and the length filter, before stemming."""
        if self.lowercase:
            text = text.lower()
        if "\u2019" in text:  # typographic apostrophe: "don’t" is "don't"
            text = text.replace("\u2019", "'")
        stop = self.stopwords
        min_len = self.min_token_length
        if min_len == 1:
            return [t for t in self._pattern.findall(text) if t not in stop]
        return [t for t in self._pattern.findall(text) if t not in stop and len(t) >= min_len]

    def __call__(self, text: str) -> list[str]:
        tokens = self.tokenize(text)
        if self.stemmer is None or not tokens:
            return tokens
        memo = self._memo
        missing = [t for t in dict.fromkeys(tokens) if t not in memo]
        if missing:
            if len(memo) + len(missing) > MEMO_SIZE:
                memo.clear()
                missing = list(dict.fromkeys(tokens))
            memo.update(zip(missing, self._stem_words()(missing)))
        try:
            return [memo[t] for t in tokens]
        except KeyError:  # another thread cleared the memo just now
            stem = self._stem_words()
            return list(stem(tokens))

    def analyze_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Analyze many texts (stems are cached by PyStemmer, so repeats are cheap)."""
        return [self(t) for t in texts]

    def to_config(self) -> dict[str, Any]:
        """A JSON-serialisable description that :meth:`from_config` turns back into an equal analyzer."""
        return {
            "language": self.language,
            "stopwords": self._stopwords_setting,
            "stemmer": self.stemmer,
            "lowercase": self.lowercase,
            "token_pattern": self.token_pattern,
            "min_token_length": self.min_token_length,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Analyzer:
        return cls(**config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Analyzer) and self.to_config() == other.to_config()

    def __hash__(self) -> int:
        return hash(repr(sorted(self.to_config().items())))

    def __repr__(self) -> str:
        return (
            f"Analyzer(language={self.language!r}, stemmer={self.stemmer!r}, "
            f"stopwords={len(self.stopwords)} words)"
        )
