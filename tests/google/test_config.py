"""Configuration errors, key resolution and secrecy of every Google class."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragkit.errors import ConfigurationError
from ragkit.models import ChatGoogleGenerativeAI
from ragkit.models.google import ChatGoogleGenerativeAIError
from tests.google.gemini_testing import API_KEY, FAST_RETRY


def make_chat(**kwargs):
    return ChatGoogleGenerativeAI(model="gemini-1.5-flash", **kwargs)


def test_without_key_a_configuration_error_names_google_api_key():
    with pytest.raises(ConfigurationError, match="GOOGLE_API_KEY") as info:
        make_chat()
    assert "client_options" in str(info.value)  # and says how to reach an emulator


def test_key_from_environment(monkeypatch, emulator):
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    assert make_chat(client_options=emulator.client_options).invoke("a").content == "echo: a"
    monkeypatch.delenv("GOOGLE_API_KEY")
    monkeypatch.setenv("GEMINI_API_KEY", API_KEY)
    assert make_chat(client_options=emulator.client_options).invoke("b").content == "echo: b"
    assert all(r.headers["x-goog-api-key"] == API_KEY for r in emulator.requests())


def test_api_key_alias_and_wrong_key(emulator):
    llm = make_chat(api_key="wrong-key", client_options=emulator.client_options, **FAST_RETRY)
    with pytest.raises(ChatGoogleGenerativeAIError, match="API key not valid") as info:
        llm.invoke("x")
    assert info.value.status_code == 400 and len(emulator.requests()) == 1
    assert "wrong-key" not in str(info.value)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"transport": "carrier-pigeon"}, "transport must be one of"),
        ({"client_options": {"api_key": "x"}}, "not in client_options\\['api_key'\\]"),
        ({"client_options": {"api_endpoint": 8080}}, "api_endpoint'\\] must be a string"),
        ({"timeout": 0}, "timeout must be a positive number"),
        ({"max_retries": -1}, "max_retries must be >= 0"),
    ],
)
def test_bad_settings(kwargs, message):
    with pytest.raises(ConfigurationError, match=message):
        make_chat(google_api_key="k", **kwargs)


def test_key_never_in_repr_str_or_dump(google_kwargs):
    llm = make_chat(**google_kwargs)
    llm.invoke("warm up")  # the SDK client now exists too
    for text in (
        repr(llm),
        str(llm),
        repr(llm._google_client()),
        str(llm.model_dump()),
        llm.model_dump_json(),
    ):
        assert API_KEY not in text
    assert llm.google_api_key.get_secret_value() == API_KEY


def test_key_never_in_logs_or_errors(google_kwargs, emulator, caplog):
    caplog.set_level(logging.DEBUG)
    llm = make_chat(**{**google_kwargs, "max_retries": 2})
    emulator.fail(
        "generateContent", status=503, message=f"overloaded; your key {API_KEY} is fine", times=3
    )
    with pytest.raises(ChatGoogleGenerativeAIError) as info:
        llm.invoke("hello")
    assert "overloaded; your key *** is fine" in str(info.value)
    assert API_KEY not in str(info.value) and API_KEY not in repr(info.value)
    assert (
        info.value.__cause__ is None and info.value.__context__ is None
    )  # the SDK error (echoing the key) is not kept
    assert len(caplog.records) > 0
    assert all(API_KEY not in r.getMessage() for r in caplog.records)
    assert API_KEY not in caplog.text
    assert any(
        "retry 2 of 2" in r.getMessage() for r in caplog.records if r.name == "ragkit.google"
    )


def test_only_the_sdk_future_warnings_are_filtered():
    # A fresh interpreter: the SDK can be imported only once per process.
    script = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from ragkit._google.client import import_sdk
    glm = import_sdk()
    warnings.warn("unrelated", FutureWarning, stacklevel=1)
import google.generativeai
print(json.dumps({"warnings": [str(w.message) for w in caught], "sdk": google.generativeai.__version__,
                  "client": glm.GenerativeServiceClient.__name__}))
"""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=120,
    )
    result = json.loads(out.stdout)
    assert result["sdk"] == "0.8.6" and result["client"] == "GenerativeServiceClient"
    assert "unrelated" in result["warnings"]
    assert not any(
        "google.generativeai" in w or "Google will stop supporting" in w for w in result["warnings"]
    )


def test_importing_ragkit_does_not_import_the_sdk():
    script = """
import json, sys
import ragkit, ragkit.models, ragkit.embeddings, ragkit.stores, ragkit.retrievers
import ragkit.models.google, ragkit.embeddings.google
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("google.generativeai", "google.ai", "grpc")))))
"""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=120,
    )
    assert json.loads(out.stdout) == []


def test_retrievers_re_export_google_aqa_lazily():
    script = """
import json, sys
import ragkit.retrievers
before = sorted(m for m in sys.modules if m.startswith(("ragkit.retrievers.google", "ragkit._google", "google.ai")))
from ragkit.retrievers import AqaOutput, GoogleAQA
from ragkit.retrievers import google_aqa
sdk = sorted(m for m in sys.modules if m.startswith(("google.generativeai", "google.ai", "grpc")))
try:
    ragkit.retrievers.NoSuchRetriever
    missing = ""
except AttributeError as e:
    missing = str(e)
print(json.dumps({"before": before, "same": GoogleAQA is google_aqa.GoogleAQA and AqaOutput is google_aqa.AqaOutput,
                  "sdk": sdk, "missing": missing, "all": "GoogleAQA" in ragkit.retrievers.__all__}))
"""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=120,
    )
    result = json.loads(out.stdout)
    assert result["before"] == [] and result["same"] is True and result["all"] is True
    assert result["sdk"] == []  # the SDK itself loads only when a request is made
    assert result["missing"] == "module 'ragkit.retrievers' has no attribute 'NoSuchRetriever'"


def test_B7_timeout_none_is_accepted_and_means_no_limit(emulator):
    """LangChain's integration page passes ``timeout=None`` (its default: wait as long as it takes)."""
    from ragkit.embeddings import GoogleGenerativeAIEmbeddings

    llm = ChatGoogleGenerativeAI(
        model="gemini-1.5-flash",
        temperature=0,
        max_tokens=None,
        timeout=None,
        max_retries=2,
        google_api_key=API_KEY,
        client_options=emulator.client_options,
    )
    assert llm.timeout is None
    assert llm.invoke("hi").content == "echo: hi"
    assert "".join(c.content for c in llm.stream("hey")) == "echo: hey"
    assert llm._google_client().timeout is None
    emb = GoogleGenerativeAIEmbeddings(
        model="models/text-embedding-004",
        timeout=None,
        google_api_key=API_KEY,
        client_options=emulator.client_options,
    )
    assert len(emb.embed_query("x")) > 0
    with pytest.raises(ConfigurationError, match="timeout must be a positive number"):
        make_chat(google_api_key=API_KEY, timeout=0)


def test_the_client_is_kept_until_a_connection_setting_changes():
    chat = make_chat(google_api_key=API_KEY, client_options={"api_endpoint": "http://127.0.0.1:9"})
    first = chat._google_client()
    assert chat._google_client() is first  # same settings: same client (and its SDK services)
    assert first.endpoint == "http://127.0.0.1:9" and first.retry.max_retries == 6
    chat.client_options["api_endpoint"] = "http://127.0.0.1:10"  # edited in place
    second = chat._google_client()
    assert second is not first and second.endpoint == "http://127.0.0.1:10"
    chat.max_retries = 1
    third = chat._google_client()
    assert third is not second and third.retry.max_retries == 1
    assert API_KEY not in repr(third.connection)  # the key stays masked
