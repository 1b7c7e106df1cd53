"""``ragkit eval``: score retrievers on a BEIR dataset, or on an index with judgements for it.

Example:
    $ ragkit eval --dataset datasets/bicycle-care --retrievers bm25,dense,hybrid
    $ ragkit eval --index bikes --queries queries.jsonl --qrels qrels.tsv
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ragkit._cli import output
from ragkit._cli.chat_model import count_option, model_options
from ragkit._cli.command_flags import EvalFlags
from ragkit._cli.guard import guarded


def _k_list(raw: str) -> tuple[int, ...]:
    from ragkit.errors import ConfigurationError

    try:
        values = tuple(sorted({int(v) for v in raw.split(",") if v.strip()}))
    except ValueError as err:
        raise ConfigurationError(
            f"-k {raw!r}: expected comma-separated integers like 1,3,5,10"
        ) from err
    if not values or values[0] <= 0:
        raise ConfigurationError(f"-k {raw!r}: expected positive integers like 1,3,5,10")
    return values


def _answer_embeddings(name: str, judge: str | None, metrics: str | None) -> Any:
    """The embeddings for answer_relevancy/answer_correctness, when a judge will run them."""
    if judge is None:
        return None
    wanted = metrics.split(",") if metrics else ["answer_relevancy"]
    if not {"answer_relevancy", "answer_correctness"} & {m.strip() for m in wanted}:
        return None
    from ragkit.indexing.embedding_choice import make_embeddings

    return make_embeddings(name)


@click.group("eval", invoke_without_command=True)
@click.option(
    "--dataset",
    envvar="RAGKIT_DATASET",
    help="A BEIR-format dataset folder (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv).",
)
@click.option(
    "--index",
    "index_dir",
    help="Evaluate this index (built with `ragkit index`) instead of building one from a corpus.",
)
@click.option("--queries", help="With --index: a BEIR queries.jsonl file.")
@click.option(
    "--qrels",
    help="With --index: a BEIR qrels TSV (query-id, corpus-id, score); a corpus-id names a "
    "source by the end of its path, with or without the extension.",
)
@click.option(
    "--retrievers",
    default="bm25,dense,hybrid",
    show_default=True,
    help="Comma-separated: bm25, dense, mmr, hybrid (and parent with --index).",
)
@click.option(
    "-k", "k_values", default="1,3,5,10", show_default=True, help="Cut-offs, comma-separated."
)
@click.option(
    "--embedding",
    envvar="RAGKIT_EMBEDDING",
    default="local",
    show_default=True,
    help="local | google | hash[-N] for the dense members (an index uses its own).",
)
@click.option("--split", default="test", show_default=True, help="Which qrels split to score.")
@click.option(
    "--output",
    "output_path",
    type=click.Path(dir_okay=False),
    help="Also write the table to this file.",
)
@click.option(
    "--plot",
    "plot_path",
    is_flag=False,
    flag_value="",
    default=None,
    help="Write recall@k curves to a PNG (default: next to --output, or ragkit-eval.png).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document with all scores.")
@click.option(
    "--answers",
    "answers_path",
    help="With --index: a JSONL file of questions (and reference answers); answer each with "
    "--model over the passages retrieved and score the answers.",
)
@click.option(
    "--judge",
    help="The judge of the answers: openai:NAME, gemini:NAME, fake:FILE.json or overlap (word "
    "overlap, offline); served as --model is (--base-url, --model-key-file).",
)
@click.option(
    "--metrics",
    help="With --answers: comma-separated answer metrics (default: the judged ones with --judge, "
    "and exact_match, token_f1, citations_retrieved, citations_relevant).",
)
@count_option("--passages", 4, "With --answers: passages retrieved per question.")
@count_option("--max-concurrency", 8, "With --answers: judge calls in flight at once.")
@model_options
@guarded
def eval_cmd(**given: Any) -> None:
    """Evaluate retrievers (nDCG, recall, MRR, MAP, precision at k) on a BEIR-format dataset,
    or on an index you built with judgements for it.

    With --index, each judged corpus-id is matched to the index's sources by the end of the
    path, with or without the extension: 'bc02' and 'docs/bc02.md' both name .../docs/bc02.md.
    Chunks are mapped to their documents; a document ranks where its best chunk does.

    \b
    Examples:
      ragkit eval --dataset datasets/bicycle-care
      ragkit eval --dataset ../scifact --retrievers bm25,hybrid -k 1,10,100 --output report.md --plot
      ragkit index datasets/bicycle-care/docs --index bikes
      ragkit eval --index bikes --queries datasets/bicycle-care/queries.jsonl \\
                  --qrels datasets/bicycle-care/qrels/test.tsv
      ragkit eval generate --index bikes --model gemini:gemini-2.0-flash --size 50 -o questions.jsonl
      ragkit eval --index bikes --answers questions.jsonl --model gemini:gemini-2.0-flash \\
                  --judge gemini:gemini-2.0-flash --embedding local
    """
    flags = EvalFlags(**given)
    if click.get_current_context().invoked_subcommand is not None:
        return  # `ragkit eval generate ...`
    if flags.answers_path:
        from ragkit._cli.answers_eval import AnswerRun, report, run_answers
        from ragkit._cli.chat_model import DEFAULT_MODEL
        from ragkit._cli.model_spec import ModelSettings, chat_model_from_spec
        from ragkit.errors import ConfigurationError as Bad

        if not flags.index_dir:
            raise Bad("--answers needs --index (the index to answer from)")
        settings = ModelSettings(flags.endpoint, flags.timeout)
        names_given = [n.strip() for n in flags.retrievers.split(",") if n.strip()]
        run = AnswerRun(
            index=flags.index_dir,
            questions=flags.answers_path,
            model=chat_model_from_spec(flags.model_name or DEFAULT_MODEL, settings),
            judge=chat_model_from_spec(flags.judge, settings) if flags.judge else None,
            embeddings=_answer_embeddings(flags.embedding, flags.judge, flags.metrics),
            retriever=names_given[0] if len(names_given) == 1 else "hybrid",
            k=flags.passages,
            metrics=[m.strip() for m in flags.metrics.split(",")] if flags.metrics else None,
            max_concurrency=flags.max_concurrency,
        )
        result, samples = run_answers(run)
        report(result, samples, flags.as_json, flags.output_path)
        return
    from ragkit._cli.evaluation import judgements, plot, run_eval, run_index_eval
    from ragkit.errors import ConfigurationError

    ks = _k_list(flags.k_values)
    names = [n.strip() for n in flags.retrievers.split(",") if n.strip()]
    match = None
    if flags.index_dir:
        data = judgements(flags.dataset, flags.queries, flags.qrels, flags.split)
        table, results, match = run_index_eval(flags.index_dir, data, names, ks)
        from ragkit.indexing.postgres.location import shown

        label = shown(flags.index_dir)
    elif flags.dataset:
        if flags.queries or flags.qrels:
            raise ConfigurationError("--queries and --qrels go with --index, not --dataset alone")
        table, results = run_eval(flags.dataset, names, ks, flags.embedding, flags.split)
        label = flags.dataset
    else:
        raise ConfigurationError(
            "pass --dataset FOLDER (a BEIR dataset), or --index DIR with --queries and --qrels"
        )
    if match is not None and match.unmatched:
        output.err(
            f"note: {len(match.unmatched)} judged document id(s) name no source of the index "
            f"(they count as relevant documents it does not hold): {', '.join(match.unmatched[:5])}"
            + (" ..." if len(match.unmatched) > 5 else "")
        )
    if flags.output_path:
        Path(flags.output_path).write_text(f"# ragkit eval: {label}\n\n{table}\n", encoding="utf-8")
    png = None
    if flags.plot_path is not None:
        png = Path(
            flags.plot_path
            or (
                Path(flags.output_path).with_suffix(".png")
                if flags.output_path
                else "ragkit-eval.png"
            )
        )
        plot(results, ks, png)
    if flags.as_json:
        data_out: dict[str, Any] = {
            "dataset": flags.dataset,
            "index": label if flags.index_dir else None,
            "k_values": list(ks),
            "plot": str(png) if png else None,
            "results": [
                {
                    "name": r.name,
                    "scores": r.scores,
                    "latency_ms": r.latency_ms,
                    "num_queries": r.num_queries,
                }
                for r in results
            ],
        }
        if match is not None:
            data_out["matched_sources"] = match.ids
            data_out["unmatched_ids"] = match.unmatched
        output.emit_json(data_out)
    else:
        print(table)
        if png:
            print(f"\nplot: {png}")


def _register() -> None:
    from ragkit._cli.generate_command import generate_cmd

    eval_cmd.add_command(generate_cmd)


_register()
