"""``ragkit models``: fetch an ONNX model by name, and write a dynamic-int8 copy of one.

Example:
    $ ragkit models download BAAI/bge-small-en-v1.5
    $ ragkit models quantize models/bge-small-en-v1.5 --json
"""

from __future__ import annotations

from pathlib import Path

import click

from ragkit._cli import output
from ragkit._cli.guard import guarded


@click.group("models")
def models_cmd() -> None:
    """ONNX models you bring: download one by name, quantize one to int8.

    \b
    Use a model directory or repository name with:
      ragkit index docs/ --index my-index --embedding onnx:DIR_OR_REPO
      ragkit query my-index "question" --rerank DIR_OR_REPO
    """


@models_cmd.command("download")
@click.argument("repo")
@click.option("--revision", help="Branch, tag or commit [the default branch].")
@click.option("--file-name", help="The .onnx file to fetch [model.onnx or onnx/model.onnx].")
@click.option("--cache-folder", help="The Hugging Face cache to use [HF_HUB_CACHE / HF_HOME].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@guarded
def download_cmd(
    repo: str, revision: str | None, file_name: str | None, cache_folder: str | None, as_json: bool
) -> None:
    """Fetch an ONNX model repository (REPO is owner/name) into the Hugging Face cache.

    Only the files an ONNX model needs are fetched (configs, tokenizer, pooling, the .onnx
    graph), never PyTorch weights. Later uses find it in the cache without the network.

    \b
    Example:
      ragkit models download BAAI/bge-small-en-v1.5 --file-name onnx/model.onnx
    """
    from ragkit.embeddings.hub import fetch, looks_like_repo_id, split_revision
    from ragkit.errors import ConfigurationError

    name, rev = split_revision(repo)
    if not looks_like_repo_id(name):
        raise ConfigurationError(f"{repo!r} is not a repository name (owner/name)")
    folder = fetch(name, revision=revision or rev, file_name=file_name, cache_folder=cache_folder)
    if as_json:
        output.emit_json({"repo": name, "revision": revision or rev, "path": str(folder)})
    else:
        print(f"{name} is in {folder}")


@models_cmd.command("quantize")
@click.argument("model_dir", metavar="DIR", type=click.Path(path_type=Path))
@click.option(
    "--output", "-o", "out_dir", type=click.Path(path_type=Path), help="Where to write [DIR-int8]."
)
@click.option("--file-name", help="Which .onnx file of DIR [model.onnx or onnx/model*.onnx].")
@click.option(
    "--sample",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Texts to compare the two models on, one per line [a built-in mix of 24].",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@guarded
def quantize_cmd(
    model_dir: Path, out_dir: Path | None, file_name: str | None, sample: Path | None, as_json: bool
) -> None:
    """Write a dynamic-int8 copy of an ONNX model directory and report how well it agrees.

    The copy holds every file of DIR with the graph quantized by onnxruntime (weights to int8).
    Agreement is the cosine of each sample text's two vectors for an embedding model, or the
    correlation of the scores for a cross-encoder; the copy is usually 3-4x smaller and faster
    on CPU.

    \b
    Example:
      ragkit models quantize models/bge-small-en-v1.5
      ragkit index docs/ --index my-index --embedding onnx:models/bge-small-en-v1.5-int8
    """
    from ragkit.embeddings.quantize import is_cross_encoder, quantize_model_dir

    texts = None
    if sample is not None:
        texts = [
            line.strip() for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()
        ]
    reranker = model_dir.is_dir() and is_cross_encoder(model_dir)
    agreement = None
    if reranker:
        from ragkit.retrievers.cross_encoder import score_agreement

        agreement = score_agreement
    report = quantize_model_dir(
        model_dir,
        out_dir,
        file_name=file_name,
        sample=texts,
        agreement=agreement,
        kind="cross-encoder" if reranker else "embeddings",
    )
    if as_json:
        emit = report.to_dict()
        emit["size_ratio"] = report.size_after / max(report.size_before, 1)
        output.emit_json(emit)
        return
    measure = "score correlation" if reranker else "cosine agreement"
    print(f"wrote {report.output} ({report.graph} quantized to int8)")
    print(
        f"  size: {report.size_before / 1e6:.1f} MB -> {report.size_after / 1e6:.1f} MB "
        f"({report.size_after / max(report.size_before, 1):.0%})"
    )
    print(
        f"  {measure} with the original on {report.samples} texts: mean "
        f"{report.mean_agreement:.4f}, min {report.min_agreement:.4f}"
    )
