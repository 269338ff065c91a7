"""The disclosure is generated from the purpose registry: a purpose registered later is on the
Privacy page, the first-connection notice and `memoir-cli privacy` without anyone editing them,
in Korean and in English; a purpose the settings switch off is not listed."""

from __future__ import annotations

import pytest

from memoir_desktop.core.llm import disclosure, purposes

NEW = purposes.Purpose("testing-only", "ZZQ a purpose added by a later feature.", "ZZQ 나중에 생긴 기능의 목적.")


@pytest.fixture
def new_purpose():
    purposes.register(NEW)
    yield NEW
    purposes.PURPOSES.pop(NEW.name, None)


def test_every_registered_purpose_is_disclosed_in_both_languages(new_purpose):
    d = disclosure.describe("https://api.example.com/v1", True)
    for p in purposes.app_purposes():
        assert p.en in d.text("en") and p.ko in d.text("ko"), p.name
    assert "ZZQ 나중에" in d.text("ko") and "ZZQ a purpose" in d.text("en")


def test_what_the_settings_switch_off_is_not_listed():
    from memoir_desktop.core.config import Settings

    off = disclosure.describe("http://127.0.0.1:11434/v1", True, Settings(graph_enabled=False))
    on = disclosure.describe("http://127.0.0.1:11434/v1", True, Settings(search_reranker="llm"))
    assert "graph" not in [p.name for p in off.sent] and "rerank" not in [p.name for p in off.sent]
    assert {"graph", "rerank"} <= {p.name for p in on.sent}


def test_the_settings_page_and_first_notice_list_a_new_purpose(window, qtbot, new_purpose):
    window.open_settings()
    dialog = window.settings_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=10_000)
    dialog.provider.setCurrentIndex(dialog.provider.findData("custom"))
    dialog.base_url.setText("https://api.example.com/v1")
    assert "ZZQ" in dialog.what_is_sent.text()
    dialog.reject()
    box = window._say_what_is_sent(window.backend.settings)
    assert "ZZQ" in box.text()
    box.close()


def test_the_cli_prints_the_registry_in_korean_and_english(tmp_path, new_purpose, monkeypatch, capsys):
    from memoir_desktop import cli

    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", "a long passphrase")
    monkeypatch.setenv("MEMOIR_LLM_BASE_URL", "http://127.0.0.1:11434/v1")
    for lang, words in (("ko", NEW.ko), ("en", NEW.en)):
        assert cli.main(["privacy", "--lang", lang]) == 0
        out = capsys.readouterr().out
        assert words in out and purposes.PURPOSES["letter"].text(lang) in out
