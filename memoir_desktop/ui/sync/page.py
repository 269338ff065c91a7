"""`SyncPage`: Settings → Sync. What sync is, where the journal is synced, a test of that place, Sync now,
when the journal last synced and what did not work, in words.

The address is saved with the dialog's Save (SettingsDialog.settings); a round that went through also
remembers it (core/sync). A WebDAV password goes to the system keyring through core/keys/secrets.py, off the
UI thread (the keyring may ask to be unlocked), or, where there is none, is kept for this session only
(AutoSync.session_logins). Rounds run through AutoSync, so this page never starts a second one.

When the place holds another journal and this computer's journal is still empty (a second computer's first
start made one before the diarist came here), the page offers to use the journal kept there instead: the
app brings it here (ui/sync/join_flow.py).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from memoir_desktop.core.keys import secrets
from memoir_desktop.core.sync import check, joining
from memoir_desktop.ui.sync import words
from memoir_desktop.ui.sync.address import WEBDAV, kind_of, with_login
from memoir_desktop.ui.sync.auto_sync import AutoSync
from memoir_desktop.ui.sync.computers import ComputersBox
from memoir_desktop.ui.sync.place_form import PlaceForm
from memoir_desktop.ui.tasks import call_if_alive


class SyncPage(QWidget):
    join_requested = Signal(str, object)  # (place, WebDAV login typed here or None): use the journal kept there

    # Long: the sync page's form built in reading order (where, login, status, computers).
    def __init__(self, backend, url: str, set_passphrase: Callable[[], None] | None = None, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.sync = AutoSync.of(backend)
        self._set_passphrase = set_passphrase
        self._saved_login_user: str | None = None
        self.login_loaded = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.intro = QLabel(self.tr("Sync keeps this journal on every computer you use, through storage you "
                                    "already have. It is locked with your passphrase before it leaves this "
                                    "computer, so the storage never sees your words."))
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)

        self.passphrase_box = QGroupBox()
        box = QHBoxLayout(self.passphrase_box)
        self.passphrase_note = QLabel()
        self.passphrase_note.setWordWrap(True)
        box.addWidget(self.passphrase_note, 1)
        self.passphrase_button = QPushButton(self.tr("Set a passphrase…"))
        self.passphrase_button.clicked.connect(self._ask_passphrase)
        box.addWidget(self.passphrase_button)
        layout.addWidget(self.passphrase_box)

        where = QGroupBox(self.tr("Where"))
        where_layout = QVBoxLayout(where)
        self.place = PlaceForm(url)
        where_layout.addWidget(self.place)
        layout.addWidget(where)

        buttons = QHBoxLayout()
        self.test_button = QPushButton(self.tr("Test the connection"))
        self.test_button.clicked.connect(self.test_connection)
        self.sync_button = QPushButton(self.tr("Sync now"))
        self.sync_button.clicked.connect(self.sync_now)
        buttons.addWidget(self.test_button)
        buttons.addWidget(self.sync_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.hide()
        layout.addWidget(self.result)
        self.failure = QLabel()
        self.failure.setObjectName("opDelete")
        self.failure.setWordWrap(True)
        self.failure.hide()
        layout.addWidget(self.failure)
        self.join_offer = QGroupBox()
        offer = QVBoxLayout(self.join_offer)
        offer_note = QLabel(self.tr("This computer's journal is still empty. If the journal kept there is yours, "
                                    "it can come here and take the empty one's place."))
        offer_note.setWordWrap(True)
        offer.addWidget(offer_note)
        self.join_button = QPushButton(self.tr("Use the journal kept there on this computer"))
        self.join_button.clicked.connect(self._use_journal_there)
        row = QHBoxLayout()
        row.addWidget(self.join_button)
        row.addStretch(1)
        offer.addLayout(row)
        self.join_offer.hide()
        layout.addWidget(self.join_offer)
        # After the passphrase was changed on another computer: typed here once, for the next round.
        self.new_passphrase_box = QGroupBox()
        again = QHBoxLayout(self.new_passphrase_box)
        self.new_passphrase = QLineEdit()
        self.new_passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.new_passphrase.setPlaceholderText(self.tr("The new passphrase"))
        again.addWidget(self.new_passphrase, 1)
        self.new_passphrase_button = QPushButton(self.tr("Go on syncing"))
        self.new_passphrase_button.clicked.connect(self._sync_with_new_passphrase)
        again.addWidget(self.new_passphrase_button)
        self.new_passphrase_box.hide()
        layout.addWidget(self.new_passphrase_box)
        self.computers = ComputersBox(backend, self.sync)
        layout.addWidget(self.computers)
        self.last = QLabel()
        self.last.setWordWrap(True)
        layout.addWidget(self.last)
        when = QLabel(self.tr("memoir syncs when it starts, a few seconds after you write, every five "
                              "minutes, and when you close it. To stop syncing, clear the place and save."))
        when.setObjectName("muted")
        when.setWordWrap(True)
        layout.addWidget(when)

        self.sync.started.connect(self._round_started)
        self.sync.progress.connect(self._progress)
        self.sync.finished.connect(self._round_done)
        self.sync.failed.connect(self._round_failed)
        # Methods, not lambdas: AutoSync outlives this page, and Qt drops a dead page's methods by itself.
        self.sync.status_known.connect(self._show_last)
        self.refresh_state()
        self._show_last()
        if self.sync.running:
            self._round_started()
        elif self.sync.last_error is not None and url:
            self._show_failure(self.sync.last_error)
        self._load_login(url)

    # -- state ----------------------------------------------------------------------------------

    def refresh_state(self) -> None:
        """Whether this journal can sync: encrypted, with a passphrase (called again once one is set)."""
        encrypted = bool(self.backend.encrypted)
        can = self.sync.can_sync
        self.passphrase_box.setVisible(not can)
        self.passphrase_button.setVisible(encrypted)
        self.passphrase_note.setText(
            self.tr("Sync needs your journal to have a passphrase: it locks the journal before it leaves "
                    "this computer, and your other computers open the journal with it.") if encrypted else
            self.tr("Sync needs an encrypted journal with a passphrase: File → Encrypt this journal, then "
                    "set a passphrase here."))
        self.sync_button.setEnabled(can and not self.sync.running)

    def _ask_passphrase(self) -> None:
        if self._set_passphrase is not None:
            self._set_passphrase()  # the Privacy tab's way, which calls refresh_state once it is set

    def _show_last(self, _status=None) -> None:
        said = words.synced_ago(self.sync.last_sync)
        if self.sync.last_report is not None:
            said += ". " + words.round_result(self.sync.last_report)
        self.last.setText(said)

    def _load_login(self, url: str) -> None:
        if kind_of(url) != WEBDAV:
            self.login_loaded = True
            return
        session = self.sync.session_logins.get(url)

        def loaded(login: tuple[str, str] | None) -> None:
            login = login or session
            self.login_loaded = True
            if login:
                self._saved_login_user = login[0]
                self.place.user.setText(login[0])
                self.place.password.setPlaceholderText(
                    self.tr("A password is kept. Type a new one to replace it."))

        # The keyring can block (an unlock prompt): read off the UI thread, like the API key.
        self.backend.read(lambda _m: secrets.get_sync_login(url), loaded, lambda _exc: loaded(None))

    # -- the login --------------------------------------------------------------------------------

    def save_login(self, on_done: Callable[[], None] | None = None) -> None:
        """A WebDAV login typed here, to the keyring (or this session); one cleared, removed. Then on_done."""
        url, login = self.place.url(), self.place.typed_login()
        cleared = (self.place.current_kind == WEBDAV and url and not self.place.user.text().strip()
                   and self._saved_login_user)
        if not url or not (login or cleared):
            call_if_alive(on_done)
            return
        sessions = self.sync.session_logins

        def work(_m) -> None:
            in_keyring = secrets.set_sync_login(url, login[0] if login else None, login[1] if login else None)
            # Kept here, not by a callback: the dialog may be closed (Save) before the result comes back.
            sessions.pop(url, None)
            if login and not in_keyring:  # no keyring: kept until memoir closes (the note beside it says so)
                sessions[url] = login

        def saved(_result=None) -> None:
            self._saved_login_user = login[0] if login else None
            self.place.password.clear()  # the secret leaves the widget once it is kept
            call_if_alive(on_done)

        self.backend.change(work, saved, lambda _exc: saved())

    # -- actions ------------------------------------------------------------------------------------

    def test_connection(self) -> None:
        url = self.place.url()
        if not url:
            self._no_place()
            return
        login = self.place.typed_login() or self.sync.session_logins.get(url)
        target = with_login(url, *login) if login and kind_of(url) == WEBDAV else url
        kind = kind_of(url)
        self.test_button.setEnabled(False)
        self._said(self.tr("Connecting…"))

        def ok(computers: int) -> None:
            self.test_button.setEnabled(True)
            if computers:
                said = self.tr("Connected. Your journal is kept there by %n computer(s).", None, computers)
            else:
                said = self.tr("Connected. Nothing is kept there yet: Sync now puts your journal there.")
            self._said("✓ " + said)

        def failed(exc: BaseException) -> None:
            self.test_button.setEnabled(True)
            self._said("✗ " + words.failure(exc, kind), failed=True)
            self._offer_join(exc)

        # Opens and lists the place, writes nothing (core/sync: check); the journal's key tells its own place
        # from another journal's.
        self.backend.read(lambda m: check(target, m.keys.data_key), ok, failed)

    def sync_now(self) -> None:
        url = self.place.url()
        if not url:
            self._no_place()
            return
        self.sync_button.setEnabled(False)
        self.save_login(lambda: self.sync.sync_now(url))

    def _no_place(self) -> None:
        self._said(words.no_place(), failed=True)

    # -- a round's news ----------------------------------------------------------------------------

    def _said(self, text: str, failed: bool = False) -> None:
        self.join_offer.hide()  # shown again only after the failure that calls for it
        self.result.setVisible(not failed)
        self.failure.setVisible(failed)
        (self.failure if failed else self.result).setText(text)

    def _round_started(self) -> None:
        self.sync_button.setEnabled(False)
        self._said(words.progress("look", 0, 1))

    def _progress(self, stage: str, done: int, total: int) -> None:
        self._said(words.progress(stage, done, total))

    def _round_done(self, report) -> None:
        self.refresh_state()
        self._show_last()
        self.new_passphrase_box.hide()
        self.computers.refresh()
        if report is not None and not report.clean:  # what could not be verified is said, not hidden
            self._said(words.round_result(report), failed=True)
            return
        self.failure.hide()
        self.result.hide()  # the line below says it: when, and what went each way

    def _round_failed(self, exc: BaseException) -> None:
        self.refresh_state()
        self._show_failure(exc)

    def _show_failure(self, exc: BaseException) -> None:
        self._said(words.failure(exc, kind_of(self.sync.round_url or self.place.url())), failed=True)
        self._offer_join(exc)
        self.new_passphrase_box.setVisible(getattr(exc, "code", None) == "new_passphrase")

    def _sync_with_new_passphrase(self) -> None:
        typed = self.new_passphrase.text()
        if not typed:
            return
        self.new_passphrase.clear()  # the secret leaves the widget once it is handed to the round
        self.sync.sync_now(self.place.url() or None, passphrase=typed)

    # -- another journal there, and this one still empty ---------------------------------------------

    def _offer_join(self, exc: BaseException) -> None:
        if getattr(exc, "code", None) != "another_journal":
            return

        def known(empty: bool) -> None:
            # isHidden, not isVisible: a failure said while another tab is open is still said.
            self.join_offer.setVisible(empty and not self.failure.isHidden())

        self.backend.read(lambda m: joining.is_empty(m.engine), known)

    def _use_journal_there(self) -> None:
        url = self.place.url()
        self.join_requested.emit(url, self.place.typed_login() or self.sync.session_logins.get(url))
