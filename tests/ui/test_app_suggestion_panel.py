"""Memories another app suggested wait on the Memories page: Accept makes the memory (its card
appears), Reject keeps nothing."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton

from memoir_desktop.core.apps import app_suggestions


def _open_memories(window, qtbot):
    page = window.memories
    window.tabs.setCurrentWidget(page)
    return page


def _button(panel, text: str) -> QPushButton:
    return next(b for b in panel.findChildren(QPushButton) if b.text() == text and b.isVisibleTo(panel))


def _words(panel) -> str:
    # Rows are shown by Qt on the next turn of the event loop after they are added.
    return " ".join(label.text() for label in panel.findChildren(QLabel) if label.isVisibleTo(panel))


def _active_texts(mem) -> list[str]:
    return [m["memory"] for m in mem.get_all()["results"]]


def test_accepting_a_suggestion_makes_the_memory_and_shows_its_card(window, mem, qtbot):
    app_suggestions.suggest(mem.engine, "Claude Desktop", "Likes hiking")
    page = _open_memories(window, qtbot)
    panel = page.suggestions
    qtbot.waitUntil(lambda: panel.isVisible() and "Likes hiking" in _words(panel), timeout=10_000)
    assert "Claude Desktop의 제안: Likes hiking" in _words(panel)
    assert "다른 앱이 제안한 기억 1개" in _words(panel)
    assert "Likes hiking" not in _active_texts(mem)  # nothing kept before the yes

    _button(panel, "받아들이기").click()
    qtbot.waitUntil(lambda: "Likes hiking" in _active_texts(mem), timeout=10_000)
    qtbot.waitUntil(lambda: any(c.memory["memory"] == "Likes hiking" for c in page.cards), timeout=10_000)
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=10_000)
    card = next(c for c in page.cards if c.memory["memory"] == "Likes hiking")
    assert card.memory["state"] == "active"
    assert any(label.text() == "Claude Desktop의 제안" for label in card.findChildren(QLabel))
    assert mem.apps.memory_suggestions() == []


def test_rejecting_a_suggestion_keeps_nothing(window, mem, qtbot, backend):
    app_suggestions.suggest(mem.engine, "Claude Desktop", "Likes hiking")
    page = _open_memories(window, qtbot)
    panel = page.suggestions
    qtbot.waitUntil(lambda: panel.isVisible() and "Likes hiking" in _words(panel), timeout=10_000)
    _button(panel, "거절하기").click()
    qtbot.waitUntil(lambda: mem.apps.memory_suggestions() == [] and not panel.isVisible(), timeout=10_000)
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    every = mem.get_all(include_invalid=True)["results"]
    assert all(m["memory"] != "Likes hiking" for m in every)
    assert all(c.memory["memory"] != "Likes hiking" for c in page.cards)


def test_a_suggestion_made_while_memoir_is_open_shows_when_the_page_is_shown_again(window, mem, qtbot, backend):
    page = _open_memories(window, qtbot)
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    assert not page.suggestions.isVisible()
    # Another process (the app's own server) suggests: no notice reaches this window.
    app_suggestions.suggest(mem.engine, "Cursor", "Is learning the cello")
    window.tabs.setCurrentWidget(window.journal)
    window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.suggestions.isVisible() and len(page.suggestions.suggestions) == 1,
                    timeout=10_000)
    assert page.suggestions.suggestions[0]["app"] == "Cursor"
