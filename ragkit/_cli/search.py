"""``ragkit query`` and ``ragkit ask``: search an index, and answer from it with a chat model.

Example:
    $ ragkit query my-index "how do I reset it?" --retriever bm25 -k 10 --dedupe
    $ ragkit query my-index "how do I reset it?" --rerank models/ms-marco-MiniLM-L6-v2
    $ ragkit ask my-index "what does the warranty cover?" --model gemini-2.0-flash
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ragkit._cli import output
from ragkit._cli.chat_model import model_options
from ragkit._cli.command_flags import SearchFlags
from ragkit._cli.guard import guarded
from ragkit._cli.settings import index_defaults, parse_filter, resolve
from ragkit.querying.catalogue import RETRIEVERS

if TYPE_CHECKING:
    from ragkit.querying.service import Query

RETRIEVER_CHOICE = click.Choice(list(RETRIEVERS))
FILTER_HELP = (
    "Metadata filter: key=value, or a JSON object in the filter language, e.g. "
    '\'{"year": {"$gte": 2020}}\' ($eq $ne $gt $gte $lt $lte $in $nin $and $or $not); '
    "repeat to require all."
)


def _retrieval_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--retriever``, ``-k``, ``--dedupe``, ``--dedupe-threshold``, ``--max-query-length``, ``--rerank``."""
    fn = click.option(
        "--rerank",
        metavar="MODEL",
        envvar="RAGKIT_RERANK",
        help="Rerank the top 50 candidates with this ONNX cross-encoder (a model directory or "
        "owner/name in the Hugging Face cache) and keep the best k [off].",
    )(fn)
    fn = click.option(
        "--max-query-length",
        type=click.IntRange(min=1),
        envvar="RAGKIT_MAX_QUERY_LENGTH",
        help="Longest question accepted, in characters [100000].",
    )(fn)
    fn = click.option(
        "--dedupe-threshold",
        type=click.FloatRange(0, 1, min_open=True),
        envvar="RAGKIT_DEDUPE_THRESHOLD",
        help="How alike two passages must be to fold (Jaccard similarity of 5-word runs) [0.8].",
    )(fn)
    fn = click.option(
        "--dedupe/--no-dedupe",
        default=None,
        envvar="RAGKIT_DEDUPE",
        help="Fold near-duplicate passages (e.g. the same paragraph from copies of a page) into "
        "the best-ranked one, which lists the others [off].",
    )(fn)
    fn = click.option(
        "-k", "k", type=click.IntRange(min=1), envvar="RAGKIT_K", help="How many passages [4]."
    )(fn)
    fn = click.option(
        "--retriever",
        type=RETRIEVER_CHOICE,
        envvar="RAGKIT_RETRIEVER",
        help="Retrieval strategy [hybrid]; multi-query also needs a chat model (see --model).",
    )(fn)
    return fn


def _settings(index_dir: str, flags: SearchFlags) -> tuple[str, int, float | None]:
    """Retriever kind, k and dedupe threshold (``None``: off) from flags, environment, ragkit.toml.

    ``--dedupe-threshold`` alone turns folding on; ``[defaults] dedupe`` may be true or a threshold.
    """
    from ragkit.retrievers.near_duplicates import dedupe_threshold

    defaults = index_defaults(index_dir)
    kind = str(resolve(flags.retriever, defaults, "retriever", "hybrid"))
    top = int(resolve(flags.k, defaults, "k", 4))
    dedupe, threshold = flags.dedupe, flags.dedupe_threshold
    on = dedupe if dedupe is not None else defaults.get("dedupe")
    if on is False or (on is None and threshold is None):
        return kind, top, None
    cut = threshold if threshold is not None else defaults.get("dedupe_threshold")
    if cut is None and isinstance(on, (int, float)) and not isinstance(on, bool):
        cut = on
    return kind, top, dedupe_threshold(True if cut is None else float(cut))


def _query_limit(index_dir: str, value: int | None) -> None:
    """Apply --max-query-length (or ``max_query_length`` in ragkit.toml) to every search."""
    from ragkit.errors import ConfigurationError
    from ragkit.stores.search_args import DEFAULT_MAX_QUERY_LENGTH, set_max_query_length

    limit = resolve(value, index_defaults(index_dir), "max_query_length", DEFAULT_MAX_QUERY_LENGTH)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ConfigurationError(
            f"max_query_length in ragkit.toml must be a positive integer, got {limit!r}"
        )
    set_max_query_length(limit)


def _question_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``DIR QUESTION``, the retrieval options, ``--filter`` and the chat model's options."""
    fn = model_options(fn)
    fn = click.option("--filter", "filters", multiple=True, help=FILTER_HELP)(fn)
    fn = _retrieval_options(fn)
    fn = click.argument("question")(fn)
    return click.argument("index_dir", metavar="DIR")(fn)


def _query(index_dir: str, question: str, flags: SearchFlags) -> Query:
    """The search the flags ask for (``--max-query-length`` applied to every search)."""
    from ragkit.querying.service import Query

    _query_limit(index_dir, flags.max_query_length)
    kind, top, cut = _settings(index_dir, flags)
    return Query(question, kind, top, parse_filter(flags.filters), cut)


def _model(index_dir: str, flags: SearchFlags) -> Any:
    """The chat model from the options (``None`` when no API key is set)."""
    from ragkit._cli.chat_model import DEFAULT_MODEL, model_choice

    defaults = index_defaults(index_dir)
    choice = model_choice(
        str(resolve(flags.model_name, defaults, "model", DEFAULT_MODEL)),
        resolve(flags.endpoint, defaults, "endpoint", None),
        flags.timeout,
    )
    return choice.build() if choice.has_key() else None


@click.command("query")
@_question_options
@click.option("--embedding", envvar="RAGKIT_EMBEDDING", hidden=True)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON document with the ranked passages."
)
@guarded
def query_cmd(index_dir: str, question: str, as_json: bool, **given: Any) -> None:
    """Search an index: ranked passages with source, score and a highlighted snippet.

    Each score is labelled with its kind: cosine similarity (similarity, parent), BM25 (bm25),
    reciprocal-rank fusion (hybrid, multi-query) or the cross-encoder's relevance (--rerank); MMR
    gives none. Scores of different kinds are not comparable.

    \b
    Examples:
      ragkit query my-index "how do I reset it?"
      ragkit query my-index "reset" --retriever bm25 -k 10 --filter source=/docs/manual.md --json
      ragkit query my-index "reset" --filter '{"year": {"$gte": 2020}}'
      ragkit query my-index "reset" --dedupe
      ragkit query my-index "reset" --rerank models/ms-marco-MiniLM-L6-v2 -k 5
      GOOGLE_API_KEY=... ragkit query my-index "reset" --retriever multi-query --model gemini-2.0-flash
    """
    from ragkit._cli.retrieve import retrieve

    flags = SearchFlags(**given)
    rerank = flags.rerank
    query = _query(index_dir, question, flags)
    kind = query.retriever
    llm = _model(index_dir, flags) if kind == "multi-query" else None
    docs, scale = retrieve(index_dir, query, flags.embedding, llm=llm, rerank=rerank)
    if as_json:
        output.emit_json(
            {
                "query": question,
                "retriever": kind,
                "k": query.k,
                "dedupe": query.dedupe,
                "rerank": rerank,
                "score_kind": scale.to_dict(),
                "results": [output.result_json(d, i, scale) for i, d in enumerate(docs, 1)],
            }
        )
    else:
        output.print_results(docs, question, scale, kind)


@click.command("ask")
@_question_options
@guarded
def ask_cmd(index_dir: str, question: str, **given: Any) -> None:
    """Answer a question from an index with a chat model, citing the sources.

    --model openai:NAME answers with any OpenAI-compatible server (--base-url, key in
    OPENAI_API_KEY or --model-key-file); gemini:NAME (the default) with Gemini (GOOGLE_API_KEY;
    --endpoint another server speaking its API). Without a key, prints the retrieved passages
    and says how to get answers.

    \b
    Examples:
      GOOGLE_API_KEY=... ragkit ask my-index "what does the warranty cover?"
      GOOGLE_API_KEY=... ragkit ask my-index "warranty?" --model gemini-1.5-pro --dedupe
      GOOGLE_API_KEY=... ragkit ask my-index "warranty?" --endpoint http://127.0.0.1:8080
      ragkit ask my-index "warranty?" --model openai:llama3.1 \\
                 --base-url http://127.0.0.1:11434/v1 --model-key-file ~/.ollama-key
    """
    from ragkit._cli.ask import answer
    from ragkit._cli.retrieve import retrieve

    flags = SearchFlags(**given)
    query = _query(index_dir, question, flags)
    model = _model(index_dir, flags)
    docs, scale = retrieve(index_dir, query, llm=model, rerank=flags.rerank)
    text = answer(question, docs, model=model) if model is not None else None
    if text is None:
        from ragkit._cli.chat_model import DEFAULT_MODEL, model_choice

        wanted = model_choice(
            str(resolve(flags.model_name, index_defaults(index_dir), "model", DEFAULT_MODEL))
        )
        output.err(
            f"{wanted.key_help()} is not set, so there is no generated answer. Set it to get "
            "one; the retrieved passages follow."
        )
        output.print_results(docs, question, scale, query.retriever)
        return
    print(text)
    print()
    print("Sources:")
    for i, doc in enumerate(docs, 1):
        print(f"  [{i}] {doc.metadata.get('source', '?')}")
