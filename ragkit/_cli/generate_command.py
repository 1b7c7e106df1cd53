"""``ragkit eval generate``: write a test set (questions, reference answers, source passages)
from an index's chunks, as JSONL that ``ragkit eval --answers`` reads.

Example:
    $ ragkit eval generate --index bikes --model gemini:gemini-2.0-flash --size 50 -o questions.jsonl
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ragkit._cli import output
from ragkit._cli.chat_model import DEFAULT_MODEL, count_option, model_options
from ragkit._cli.guard import guarded


@click.command("generate")
@click.option(
    "--index", "index_dir", required=True, help="The index whose chunks the questions come from."
)
@count_option("--size", 50, "Questions to keep.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the chunk order.")
@count_option("--min-words", 30, "Chunks shorter than this are not used.")
@click.option(
    "-o",
    "--output",
    "output_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The JSONL file to write.",
)
@count_option("--max-concurrency", 8, "Model calls in flight at once.")
@model_options
@guarded
def generate_cmd(**flags: Any) -> None:
    """Generate questions with reference answers from the chunks of an index.

    Each kept line holds user_input, reference, reference_contexts and reference_context_ids
    (the chunk's source). Replies that are not questions, answers not found in the passage and
    repeated questions are dropped and counted. The same index, seed and model give the same file.
    """
    from ragkit._cli.model_spec import ModelSettings, chat_model_from_spec
    from ragkit.errors import ConfigurationError
    from ragkit.eval.answers.testset import TestsetOptions, generate_testset
    from ragkit.indexing.index_dir import Index

    settings = ModelSettings(flags["endpoint"], flags["timeout"])
    model = chat_model_from_spec(flags["model_name"] or DEFAULT_MODEL, settings)
    index_dir, output_path = flags["index_dir"], flags["output_path"]
    store = Index.open(index_dir).vectorstore
    if not hasattr(store, "documents"):
        raise ConfigurationError(f"{index_dir}: test sets come from folder indexes for now")
    options = TestsetOptions(
        size=flags["size"],
        seed=flags["seed"],
        min_words=flags["min_words"],
        max_concurrency=flags["max_concurrency"],
    )
    testset = generate_testset(list(store.documents()), model, options)
    lines = [json.dumps(r, ensure_ascii=False) for r in testset.records]
    Path(output_path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(
        f"{len(testset.records)} question(s) written to {output_path} ({testset.asked} chunk(s) asked)"
    )
    for reason, count in sorted(testset.dropped.items()):
        output.err(f"dropped {count}: {reason}")
