"""`SettingsDialog`: the AI companion (provider, model, key), memory options, appearance, privacy
(the passphrase, the recovery key, the app lock, and what leaves the machine), sync (ui/sync/), and
the other apps that read the journal (ui/connected_apps/).

It edits the settings as saved on disk (environment overrides are shown, never persisted).
The API key goes to the system keyring through `AsyncMemoir.apply_settings`, never to a file.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Qt, QTime, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.core import config
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.llm import disclosure
from memoir_desktop.core.llm.servers import BY_KEY, PRESETS, preset_for
from memoir_desktop.ui.connected_apps.page import ConnectedAppsPage
from memoir_desktop.ui.settings.privacy import PassphraseDialog, RecoveryKeyDialog, disclosure_text
from memoir_desktop.ui.settings.search_settings import SearchGroup
from memoir_desktop.ui.settings.settings_apply import api_key_present, apply_settings, remove_passphrase
from memoir_desktop.ui.shared import llm_words
from memoir_desktop.ui.shared.a11y import readable
from memoir_desktop.ui.sync.page import SyncPage
from memoir_desktop.viewmodels.reminder import parse_time

OLLAMA_URL = BY_KEY["ollama"].base_url
LANGUAGE_NAMES = (("system", None), ("ko", "한국어"), ("en", "English"))


class SettingsDialog(QDialog):
    # A step of the connection test, said on the reads pool and shown here (a queued signal: widgets are
    # touched on the UI thread only).
    test_step = Signal(str)

    """`apply(settings, api_key, remove_key, on_done, on_error)` saves; see AsyncMemoir.apply_settings."""

    def __init__(self, settings: config.Settings, backend, apply: Callable | None = None, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.original = settings
        self._apply = apply
        self.saved_settings: config.Settings | None = None
        self.key_message: str | None = None
        self._has_saved_key = False
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        # Pages, not one column: six groups stacked were taller than a laptop screen, which put
        # Save out of reach.
        self.pages = QTabWidget()
        # Every tab in sight: with scroll arrows the last page ("Connected apps") was cut to "Conn"
        # and found by nobody; the dialog is as wide as its tabs instead.
        self.pages.tabBar().setUsesScrollButtons(False)
        self._scrolls: list[QScrollArea] = []
        # A model whose index is being prepared is shown as the choice: saving again keeps preparing it.
        self.search_group = SearchGroup(backend, settings.search_reranker,
                                        embed_model=settings.embed_model_next or settings.embed_model)
        self.apps_page = ConnectedAppsPage(backend)
        self.sync_page = SyncPage(backend, settings.sync_url, set_passphrase=self.change_passphrase)
        for title, groups in ((self.tr("AI companion"), [self._llm_group()]),
                              (self.tr("Memory"), [self._memory_group()]),
                              (self.tr("Search"), [self.search_group]),
                              (self.tr("Appearance and reminder"), [self._appearance_group(), self._reminder_group()]),
                              (self.tr("Privacy"), [self._privacy_group()]),
                              (self.tr("Sync"), [self.sync_page]),
                              (self.tr("Connected apps"), [self.apps_page])):
            page = QWidget()
            column = QVBoxLayout(page)
            if len(groups) == 1 and isinstance(groups[0], QGroupBox):
                groups[0].setTitle("")  # the tab already says it
            for group in groups:
                column.addWidget(group)
            column.addStretch(1)
            # A page that grows (a download's or a preparation's progress appearing) scrolls instead
            # of squeezing its wrapped sentences into each other.
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.NoFrame)
            scroll.setFocusPolicy(Qt.NoFocus)  # not a stop of its own: Tab goes through the page, scrolling
            scroll.setWidget(page)
            self.pages.addTab(scroll, title)
            self._scrolls.append(scroll)
        layout.addWidget(self.pages)
        self.error = QLabel()
        self.error.setObjectName("opDelete")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._load(settings)
        self._fit_pages()
        api_key_present(backend, self._key_present)

    def show_page(self, widget: QWidget) -> None:
        """Open the tab that holds `widget`."""
        for i, scroll in enumerate(self._scrolls):
            if scroll.widget().isAncestorOf(widget):
                self.pages.setCurrentIndex(i)
                return

    def _fit_pages(self) -> None:
        """Open at a size that shows every page whole. A scroll area asks for little room, so the
        dialog opened at 560×375 with its sentences cut off and a sideways scrollbar."""
        bar = self.style().pixelMetric(self.style().PixelMetric.PM_ScrollBarExtent)
        for scroll in self._scrolls:
            # As wide as the widest page needs (no sideways scrolling); a vertical bar may come.
            scroll.setMinimumWidth(scroll.widget().minimumSizeHint().width() + bar)
        tallest = max(scroll.widget().sizeHint().height() for scroll in self._scrolls)
        hint = self.sizeHint()
        grow = max(0, tallest - min(scroll.viewport().sizeHint().height() for scroll in self._scrolls))
        screen = self.screen().availableGeometry().height() if self.screen() else 768
        self.resize(max(hint.width(), 640), min(hint.height() + grow, 700, int(screen * 0.9)))

    # -- building ----------------------------------------------------------------------------

    def _llm_group(self) -> QGroupBox:
        box = QGroupBox(self.tr("AI companion"))
        form = QFormLayout(box)
        # A key typed in the field belongs to the provider it was typed for: switching presets never
        # carries an OpenAI key to a server on this computer or to another provider.
        self._typed_keys: dict[str, str] = {}
        self._key_provider: str | None = None
        provider_row = QHBoxLayout()
        self.provider = QComboBox()
        self.provider.setAccessibleName(self.tr("Provider"))
        for p in PRESETS:
            label = {"openai": self.tr("OpenAI"), "custom": self.tr("Other OpenAI-compatible server")}.get(
                p.key, self.tr("{name} (runs on this computer)").format(name=p.label))
            self.provider.addItem(label, p.key)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        provider_row.addWidget(self.provider, 1)
        self.find_button = QPushButton(self.tr("Find on this computer"))
        self.find_button.setToolTip(self.tr("Look for Ollama, LM Studio, llama.cpp, Jan or vLLM already running here"))
        self.find_button.clicked.connect(self.find_local)
        provider_row.addWidget(self.find_button)
        form.addRow(self.tr("Provider"), provider_row)
        self.base_url = QLineEdit()
        self.base_url.setAccessibleName(self.tr("Server URL"))
        form.addRow(self.tr("Server URL"), self.base_url)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setAccessibleName(self.tr("Model"))
        form.addRow(self.tr("Model"), self.model)
        self.time_limit = QSpinBox()
        self.time_limit.setRange(0, 3600)
        self.time_limit.setSingleStep(30)
        self.time_limit.setSuffix(self.tr(" s"))
        # 0: chosen by where the server is (a small model on this computer takes minutes).
        self.time_limit.setSpecialValueText(self.tr("Automatic (5 minutes on this computer, 1 minute online)"))
        self.time_limit.setAccessibleName(self.tr("Time limit for one answer"))
        form.addRow(self.tr("Time limit"), self.time_limit)
        key_row = QHBoxLayout()
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.Password)
        self.api_key.setAccessibleName(self.tr("API key"))
        keychain = crypto.keyring_available()
        self.api_key.setPlaceholderText(self.tr("Paste an API key (stored in the system keyring)") if keychain
                                        else self.tr("Paste an API key"))
        key_row.addWidget(self.api_key, 1)
        self.remove_key = QCheckBox(self.tr("Remove saved key"))
        self.remove_key.setVisible(False)
        key_row.addWidget(self.remove_key)
        form.addRow(self.tr("API key"), key_row)
        # Said here, once, before Save: no box after it (it opened behind the first-connection one).
        self.key_session_note = QLabel(self.tr("This computer has no system keyring, so memoir keeps the key only "
                                               "until you close it, and asks for it again next time."))
        self.key_session_note.setObjectName("muted")
        self.key_session_note.setWordWrap(True)
        self.key_session_note.setVisible(not keychain)
        form.addRow("", self.key_session_note)
        test_row = QHBoxLayout()
        self.test_button = QPushButton(self.tr("Test connection"))
        self.test_button.clicked.connect(self.test_connection)
        test_row.addWidget(self.test_button)
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        test_row.addWidget(self.test_result, 1)
        form.addRow("", test_row)
        self.mode_label = QLabel()
        self.mode_label.setObjectName("muted")
        self.mode_label.setWordWrap(True)
        form.addRow(self.tr("How memoir asks"), self.mode_label)
        self._show_mode(self.backend.llm_mode)
        overridden = [env for env in config.ENV_OVERRIDES if os.environ.get(env)]
        if overridden or os.environ.get("MEMOIR_LLM_API_KEY"):
            note = QLabel(self.tr("Environment variables override some of these settings: {names}").format(
                names=", ".join(overridden + (["MEMOIR_LLM_API_KEY"] if os.environ.get("MEMOIR_LLM_API_KEY")
                                              else []))))
            note.setObjectName("muted")
            note.setWordWrap(True)
            form.addRow("", note)
        return box

    def _memory_group(self) -> QGroupBox:
        box = QGroupBox(self.tr("Memory"))
        form = QFormLayout(box)
        self.summary_interval = QSpinBox()
        self.summary_interval.setRange(1, 100)
        self.summary_interval.setSuffix(self.tr(" entries"))
        self.summary_interval.setAccessibleName(self.tr("Summary interval"))
        form.addRow(self.tr("Refresh the summary every"), self.summary_interval)
        self.graph_enabled = QCheckBox(self.tr("Build graph memory (people, places, things)"))
        form.addRow(self.tr("Graph memory"), self.graph_enabled)
        self.max_invalidations = QSpinBox()
        self.max_invalidations.setRange(0, 50)
        self.max_invalidations.setAccessibleName(self.tr("Maximum memories the AI may forget per entry"))
        self.max_invalidations.setToolTip(self.tr("Beyond this many, the AI's changes wait for your OK."))
        form.addRow(self.tr("AI may forget at most (per entry)"), self.max_invalidations)
        self.mood_tracking = QCheckBox(self.tr("Note my mood when memories are made"))
        form.addRow("", self.mood_tracking)
        return box

    def _appearance_group(self) -> QGroupBox:
        box = QGroupBox(self.tr("Appearance"))
        form = QFormLayout(box)
        self.language = QComboBox()
        self.language.setAccessibleName(self.tr("Language"))
        for value, name in LANGUAGE_NAMES:
            self.language.addItem(name or self.tr("System default"), value)
        form.addRow(self.tr("Language"), self.language)
        self.theme = QComboBox()
        self.theme.setAccessibleName(self.tr("Theme"))
        for label, value in ((self.tr("System"), "system"), (self.tr("Light"), "light"), (self.tr("Dark"), "dark")):
            self.theme.addItem(label, value)
        form.addRow(self.tr("Theme"), self.theme)
        return box

    def _reminder_group(self) -> QGroupBox:
        box = QGroupBox(self.tr("Reminder"))
        form = QFormLayout(box)
        row = QHBoxLayout()
        self.reminder_enabled = QCheckBox(self.tr("Remind me to write every day at"))
        self.reminder_time = QTimeEdit()
        self.reminder_time.setDisplayFormat("HH:mm")
        self.reminder_time.setAccessibleName(self.tr("Reminder time"))
        self.reminder_enabled.toggled.connect(self.reminder_time.setEnabled)
        row.addWidget(self.reminder_enabled)
        row.addWidget(self.reminder_time)
        row.addStretch(1)
        form.addRow(row)
        self.start_in_tray = QCheckBox(self.tr("Start memoir in the system tray"))
        self.start_in_tray.setToolTip(self.tr("The window opens from the tray icon. The reminder comes while "
                                              "memoir runs."))
        form.addRow(self.start_in_tray)
        return box

    def _privacy_group(self) -> QGroupBox:
        box = QGroupBox(self.tr("Privacy"))
        form = QFormLayout(box)
        encrypted = getattr(self.backend, "encrypted", False)
        self.encryption_state = QLabel(
            self.tr("Your journal is encrypted on disk (database, search index, backups).") if encrypted else
            self.tr("Your journal is not encrypted: File → Encrypt this journal."))
        self.encryption_state.setWordWrap(True)
        form.addRow(self.encryption_state)
        row = QHBoxLayout()
        has_passphrase = encrypted and getattr(self.backend, "has_passphrase", False)
        self.passphrase_button = QPushButton(self.tr("Change the passphrase…") if has_passphrase
                                             else self.tr("Set a passphrase…"))
        self.passphrase_button.setToolTip(self.tr("The passphrase opens the journal on another computer or when "
                                                  "the system keyring is lost. Changing it re-encrypts nothing."))
        self.passphrase_button.clicked.connect(self.change_passphrase)
        self.recovery_button = QPushButton(self.tr("New recovery key…"))
        self.recovery_button.clicked.connect(self.new_recovery_key)
        self.remove_passphrase_button = QPushButton(self.tr("Remove the passphrase…"))
        self.remove_passphrase_button.setToolTip(self.tr("The journal then opens with this computer's keyring "
                                                         "alone (and the recovery key)."))
        self.remove_passphrase_button.clicked.connect(self.remove_passphrase)
        # Only where something else opens the journal: without a keyring the passphrase is the way in.
        self.remove_passphrase_button.setVisible(has_passphrase and getattr(self.backend, "keyring_keeps_key", False))
        for b in (self.passphrase_button, self.recovery_button, self.remove_passphrase_button):
            b.setEnabled(encrypted)
            row.addWidget(b)
        row.addStretch(1)
        form.addRow(row)
        self.lock_at_start = QCheckBox(self.tr("Ask for the passphrase when memoir starts"))
        self.lock_at_start.setEnabled(has_passphrase)
        form.addRow(self.lock_at_start)
        # Where no keyring holds the journal's key, every start asks, whatever the setting: the box
        # shows that (checked, not to be unchecked) and says why. The setting itself is kept as it was.
        self._asks_every_start = has_passphrase and not getattr(self.backend, "keyring_keeps_key", True)
        self.lock_at_start_reason = QLabel(
            self.tr("This computer has no system keyring, so memoir asks every time.") if not crypto.keyring_available()
            else self.tr("This computer's system keyring does not hold the journal's key, so memoir asks every time."))
        self.lock_at_start_reason.setObjectName("muted")
        self.lock_at_start_reason.setWordWrap(True)
        self.lock_at_start_reason.setVisible(self._asks_every_start)
        form.addRow(self.lock_at_start_reason)
        self.lock_idle = QSpinBox()
        self.lock_idle.setRange(0, 240)
        self.lock_idle.setSpecialValueText(self.tr("never"))
        self.lock_idle.setSuffix(self.tr(" min"))
        self.lock_idle.setAccessibleName(self.tr("Lock after minutes without use"))
        self.lock_idle.setEnabled(has_passphrase)
        form.addRow(self.tr("Lock after (idle)"), self.lock_idle)
        self.privacy_message = QLabel()
        self.privacy_message.setWordWrap(True)
        form.addRow(self.privacy_message)
        self.what_is_sent = QLabel()
        self.what_is_sent.setWordWrap(True)
        readable(self.what_is_sent)  # read and copied from the keyboard too
        self.what_is_sent.setAccessibleName(self.tr("What leaves this computer"))
        form.addRow(self.tr("What leaves this computer"), self.what_is_sent)
        return box

    def _show_what_is_sent(self) -> None:
        provider = self.provider.currentData()
        configured = provider != "openai" or bool(self.api_key.text().strip()) or self._has_saved_key \
            or bool(os.environ.get("MEMOIR_LLM_API_KEY"))
        url = self.base_url.text().strip() if provider != "openai" else ""
        try:  # the choices on screen (graph memory, the LLM reranker), once every field exists
            chosen = self.settings()
        except AttributeError:
            chosen = self.backend.settings
        self.what_is_sent.setText(disclosure_text(disclosure.describe(url, configured, chosen)))

    def change_passphrase(self) -> None:
        current = None
        if self.backend.has_passphrase:
            ask = PassphraseDialog(self.tr("Enter the current passphrase (or the recovery key)."), parent=self)
            if ask.exec() != PassphraseDialog.Accepted:
                return
            current = ask.passphrase()
        new = PassphraseDialog(self.tr("Choose the new passphrase. Keep it somewhere safe: with the recovery key, "
                                       "it is the only way to open the journal without this computer's keyring."),
                               creating=True, parent=self)
        if new.exec() != PassphraseDialog.Accepted:
            return

        def done(_result=None) -> None:
            self.passphrase_button.setText(self.tr("Change the passphrase…"))
            self.lock_at_start.setEnabled(not self._asks_every_start)
            self.lock_idle.setEnabled(True)
            said = self.tr("Passphrase saved. The journal's data was not re-encrypted.")
            if self.sync_page.sync.url:  # a new sync key at the next round (core/sync/epochs.py)
                said += " " + self.tr("Your other computers ask for the new passphrase once, at their next sync; "
                                      "a lost one reads nothing written from now on.")
            self.privacy_message.setText(said)
            self.sync_page.refresh_state()  # sync needed it

        def failed(exc: BaseException) -> None:
            code = getattr(exc, "code", "")
            self.privacy_message.setText(self.tr("That passphrase does not open this journal. Nothing was changed.")
                                         if code == "wrong" else
                                         self.tr("The passphrase was not changed: {error}").format(error=exc))

        passphrase = new.passphrase()
        self.backend.change(lambda m: m.keys.set_passphrase(passphrase, current=current), done, failed)

    def remove_passphrase(self) -> None:
        ask = PassphraseDialog(self.tr("Enter the current passphrase (or the recovery key) to remove it. The journal "
                                       "will then open with this computer's keyring alone, and the app lock goes "
                                       "too."), parent=self)
        if ask.exec() != PassphraseDialog.Accepted:
            return

        def done(_result=None) -> None:
            self.passphrase_button.setText(self.tr("Set a passphrase…"))
            self.remove_passphrase_button.hide()
            for box in (self.lock_at_start, self.lock_idle):
                box.setEnabled(False)
            self.lock_at_start.setChecked(False)
            self.lock_idle.setValue(0)
            self.privacy_message.setText(self.tr("Passphrase removed. This computer's keyring opens the journal; "
                                                 "keep the recovery key for any other."))
            self.sync_page.refresh_state()

        def failed(exc: BaseException) -> None:
            code = getattr(exc, "code", "")
            if code == "wrong":
                text = self.tr("That passphrase does not open this journal. Nothing was changed.")
            elif isinstance(exc, crypto.PassphraseNeeded):
                text = self.tr("The passphrase stays: this computer's keyring does not hold the journal's key, so "
                               "without it nothing could open the journal.")
            else:
                text = self.tr("The passphrase was not removed: {error}").format(error=exc)
            self.privacy_message.setText(text)

        remove_passphrase(self.backend, ask.passphrase(), done, failed)

    def new_recovery_key(self) -> None:
        def show(key: str) -> None:
            self.recovery_dialog = RecoveryKeyDialog(key, self)
            self.recovery_dialog.setAttribute(Qt.WA_DeleteOnClose)
            self.recovery_dialog.open()

        self.backend.change(lambda m: m.keys.new_recovery_key(), show)

    # -- values ------------------------------------------------------------------------------

    def _load(self, s: config.Settings) -> None:
        provider = s.llm_provider if s.llm_provider in BY_KEY else "custom"
        if provider == "openai" and s.llm_base_url:
            provider = preset_for(s.llm_base_url).key  # a URL set elsewhere (CLI, older file) survives a save
        elif provider == "custom" and s.llm_base_url:
            provider = preset_for(s.llm_base_url).key
        self._select(self.provider, provider)
        self._provider_changed(keep_values=False)
        self.base_url.setText(s.llm_base_url)
        self.model.setCurrentText(s.llm_model)
        self.time_limit.setValue(int(s.llm_timeout_s or 0))
        self.summary_interval.setValue(s.summary_interval)
        self.graph_enabled.setChecked(s.graph_enabled)
        self.max_invalidations.setValue(s.max_llm_invalidations_per_turn)
        self._select(self.language, s.ui_language)
        self._select(self.theme, s.theme)
        self.mood_tracking.setChecked(s.mood_tracking)
        self.reminder_enabled.setChecked(s.reminder_enabled)
        at = parse_time(s.reminder_time)
        self.reminder_time.setTime(QTime(at.hour, at.minute))
        self.reminder_time.setEnabled(s.reminder_enabled)
        self.start_in_tray.setChecked(s.start_in_tray)
        self.lock_at_start.setChecked(s.lock_at_start and self.lock_at_start.isEnabled() or self._asks_every_start)
        if self._asks_every_start:
            self.lock_at_start.setEnabled(False)
        self.lock_idle.setValue(s.lock_idle_minutes if self.lock_idle.isEnabled() else 0)
        self._show_what_is_sent()
        self.provider.currentIndexChanged.connect(self._show_what_is_sent)
        self.base_url.textChanged.connect(self._show_what_is_sent)

    @staticmethod
    def _select(box: QComboBox, value) -> None:
        index = box.findData(value)
        box.setCurrentIndex(max(index, 0))

    def _provider_changed(self, *_args, keep_values: bool = True) -> None:
        preset = BY_KEY[self.provider.currentData()]
        if self._key_provider is not None and self._key_provider != preset.key:
            self._typed_keys[self._key_provider] = self.api_key.text()
            self.api_key.setText("" if preset.local else self._typed_keys.get(preset.key, ""))
        self._key_provider = preset.key
        current_model = self.model.currentText()
        self.model.clear()
        self.model.addItems(list(preset.models))
        if preset.key == "openai":
            self.base_url.setText("")
            self.base_url.setPlaceholderText(self.tr("OpenAI default (https://api.openai.com/v1)"))
            self.base_url.setEnabled(False)
        elif preset.base_url:
            self.base_url.setEnabled(True)
            if keep_values or not self.base_url.text():
                self.base_url.setText(preset.base_url)
        else:
            self.base_url.setEnabled(True)
            self.base_url.setPlaceholderText("http://127.0.0.1:8080/v1")
        if keep_values and current_model and preset.key == "custom":
            self.model.setCurrentText(current_model)

    def _set_models(self, models: list[str]) -> None:
        """The server's own model list replaces the suggestions (the typed name stays)."""
        if not models:
            return
        current = self.model.currentText().strip()
        self.model.clear()
        self.model.addItems(models)
        self.model.setCurrentText(current or models[0])

    def _show_mode(self, mode: str | None) -> None:
        names = {"tools": self.tr("tool calls"), "json_schema": self.tr("structured output (JSON schema)"),
                 "json_object": self.tr("JSON mode"), "text": self.tr("plain text (the reply is read leniently)")}
        self.mode_label.setText(names[mode] if mode in names else
                                self.tr("found out the first time memoir talks to the model"))

    def find_local(self) -> None:
        self.find_button.setEnabled(False)
        self.test_result.setText(self.tr("Looking for a server on this computer…"))

        def found(servers: list[dict]) -> None:
            self.find_button.setEnabled(True)
            if not servers:
                self.test_result.setText(self.tr("No server found on this computer. Start Ollama, LM Studio, "
                                                 "llama.cpp, Jan or vLLM, then try again."))
                return
            first = servers[0]
            self._select(self.provider, first["preset"])
            self.base_url.setText(first["base_url"])
            self._set_models(first["models"])
            lines = [self.tr("{name} at {address}: {models}").format(
                name=f["label"], address=f["base_url"],
                models=", ".join(f["models"][:5]) or self.tr("no models listed")) for f in servers]
            self.test_result.setText(self.tr("Found on this computer (the first is chosen):") + "\n" + "\n".join(lines))

        self.backend.read(lambda m: m.connection.find_local(), found)

    def _key_present(self, present: bool) -> None:
        self._has_saved_key = present
        self._show_what_is_sent()
        if present:
            self.api_key.setPlaceholderText(self.tr("A key is saved. Type a new one to replace it."))
            self.remove_key.setVisible(True)

    def settings(self) -> config.Settings:
        s = config.Settings.from_dict(self.original.to_dict())
        s.llm_provider = self.provider.currentData()
        s.llm_base_url = self.base_url.text().strip() if s.llm_provider != "openai" else ""
        s.llm_model = self.model.currentText().strip() or self.original.llm_model
        s.llm_timeout_s = float(self.time_limit.value())
        s.embed_model = self.search_group.embed_value() or self.original.embed_model
        s.summary_interval = self.summary_interval.value()
        s.graph_enabled = self.graph_enabled.isChecked()
        s.max_llm_invalidations_per_turn = self.max_invalidations.value()
        s.ui_language = self.language.currentData()
        s.theme = self.theme.currentData()
        s.mood_tracking = self.mood_tracking.isChecked()
        s.search_reranker = self.search_group.value()
        s.reminder_enabled = self.reminder_enabled.isChecked()
        s.reminder_time = self.reminder_time.time().toString("HH:mm")
        s.start_in_tray = self.start_in_tray.isChecked()
        s.lock_at_start = self.original.lock_at_start if self._asks_every_start else self.lock_at_start.isChecked()
        s.lock_idle_minutes = self.lock_idle.value()
        s.sync_url = self.sync_page.place.url()
        return s

    # -- actions ------------------------------------------------------------------------------

    def test_connection(self) -> None:
        s = self.settings()
        key = self.api_key.text().strip() or None
        if s.llm_provider == "openai" and not key and not self._has_saved_key:
            self.test_result.setText(self.tr("Enter an API key first."))
            return
        self.test_button.setEnabled(False)
        self.test_result.setText(self.tr("Connecting…"))
        steps = {"Connecting": self.tr("Connecting…"), "Asking": self.tr("Asking the model how it answers best…"),
                 "Checking": self.tr("Checking how it sorts new facts into memories…"),
                 "Timing": self.tr("Timing a short answer…")}

        def step(text: str) -> None:  # on the UI thread (the signal is queued from the reads pool)
            said = next((words for start, words in steps.items() if text.startswith(start)), None)
            if said and not self.test_button.isEnabled():
                self.test_result.setText(said)

        self.test_step.connect(step)

        def done(report) -> None:
            self.test_step.disconnect(step)
            self.test_button.setEnabled(True)
            self._set_models(report.models)
            if not report.ok:
                self.test_result.setText(self.tr("✗ Could not connect: {error}").format(
                    error=llm_words.problem(report.problem_kind or "unavailable", address=report.address,
                                            seconds=report.timeout_s, text=report.problem)))
                return
            self._show_mode(report.mode)
            lines = [self.tr("✓ Connected ({model})").format(model=report.model)]
            if report.tokens_per_s:
                lines.append(self.tr("It writes about {speed} pieces of text a second; its first words come after "
                                     "{first} s.").format(speed=f"{report.tokens_per_s:.0f}",
                                                          first=f"{report.first_token_s:.1f}"))
            if report.seconds_per_entry:
                lines.append(self.tr("An entry will take about {seconds} s to be remembered.").format(
                    seconds=f"{report.seconds_per_entry:.0f}"))
                if report.seconds_per_entry > report.timeout_s:
                    lines.append(self.tr("That is longer than the time limit: raise it above."))
            self.test_result.setText("\n".join(lines))

        def failed(exc: BaseException) -> None:
            self.test_step.disconnect(step)
            self.test_button.setEnabled(True)
            self.test_result.setText(self.tr("✗ Could not connect: {error}").format(error=self._connection_reason(exc)))

        timeout = s.llm_timeout_s
        self.backend.read(lambda m: m.connection.check_connection(s.llm_base_url, s.llm_model, key,
                                                                  progress=self.test_step.emit, timeout_s=timeout),
                          done, failed)

    def _connection_reason(self, exc: BaseException) -> str:
        """Why the Test button's connection failed, in the app's words: the core's message is English;
        its `kind` (core/llm/errors.explain) says the cause in one word."""
        s = self.settings()
        address, seconds = llm_words.place(s)
        return llm_words.problem(getattr(exc, "kind", "") or "unavailable", address=address, seconds=seconds,
                                 text=str(exc)).rstrip(".")

    def accept(self) -> None:
        settings = self.settings()
        if settings.llm_provider != "openai" and not settings.llm_base_url:
            self.error.setText(self.tr("Enter the server URL (for example {url}).").format(url=OLLAMA_URL))
            self.error.show()
            return
        if self._apply is None:
            self.saved_settings = settings
            super().accept()
            return
        self.buttons.setEnabled(False)
        self.error.hide()
        self.sync_page.save_login()  # to the keyring, before the saved address starts a round
        key = self.api_key.text().strip() or None
        self._apply(settings, key, self.remove_key.isChecked() and not key, lambda msg: self._saved(settings, msg),
                    self._failed)

    def done(self, result: int) -> None:
        # A download left running behind a closed dialog could not be followed or stopped; what it
        # fetched is kept, and the next download continues it.
        self.search_group.stop_download()
        super().done(result)

    def _saved(self, settings: config.Settings, key_message: str | None) -> None:
        self.saved_settings = settings
        self.key_message = key_message
        self.api_key.clear()  # do not keep the secret in a widget longer than needed
        super().accept()

    def _failed(self, exc: BaseException) -> None:
        self.buttons.setEnabled(True)
        self.error.setText(self.tr("Could not save the settings: {error}").format(error=exc))
        self.error.show()


def open_settings_dialog(parent, backend, on_saved: Callable[[config.Settings, str | None], None]) -> SettingsDialog:
    settings = config.load_settings(backend.home, apply_env=False)
    dialog = SettingsDialog(settings, backend, apply=lambda *a, **k: apply_settings(backend, *a, **k), parent=parent)
    dialog.setAttribute(Qt.WA_DeleteOnClose)
    dialog.accepted.connect(lambda: on_saved(dialog.saved_settings, dialog.key_message))
    dialog.open()
    return dialog
