"""`JoinDialog`: "I already keep my journal on another computer". The place that computer syncs to (a
folder, WebDAV, S3: the same form as Settings → Sync) and the journal's passphrase; Bring my journal here.

It only asks and shows: ui/sync/join_flow.py looks in the place (the dialog shows that it is looking, and
why it did not work, in words), then closes it and brings the journal here behind the start-up window.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QProgressBar,
    QVBoxLayout,
)

from memoir_desktop.ui.shared.fit import grow_to_fit
from memoir_desktop.ui.sync import words
from memoir_desktop.ui.sync.address import WEBDAV, with_login
from memoir_desktop.ui.sync.place_form import PlaceForm


class JoinDialog(QDialog):
    bring_requested = Signal()  # the place and the passphrase are given: look there (JoinFlow)

    def __init__(self, url: str = "", login: tuple[str, str] | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Bring your journal here"))
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr("If you already keep your journal on another computer and sync it, it can come to "
                               "this one. Choose the place that computer syncs to, and type the journal's "
                               "passphrase. The two computers then stay in step."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        where = QGroupBox(self.tr("Where your journal is kept"))
        column = QVBoxLayout(where)
        self.place = PlaceForm(url)
        if login:  # typed in Settings → Sync a moment ago
            self.place.user.setText(login[0])
            self.place.password.setText(login[1])
        column.addWidget(self.place)
        layout.addWidget(where)
        form = QFormLayout()
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.field.setAccessibleName(self.tr("Your journal's passphrase"))
        form.addRow(self.tr("Passphrase"), self.field)
        note = QLabel(self.tr("The passphrase you chose for your journal on your other computer (not the "
                              "recovery key)."))
        note.setObjectName("muted")
        note.setWordWrap(True)
        form.addRow("", note)
        layout.addLayout(form)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.hide()
        layout.addWidget(self.status)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setAccessibleName(self.tr("Progress"))
        self.bar.hide()
        layout.addWidget(self.bar)
        self.error = QLabel()
        self.error.setObjectName("opDelete")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox()
        self.bring = self.buttons.addButton(self.tr("Bring my journal here"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        # Once in the dialog (a button only becomes its dialog's default there): Enter in the passphrase
        # field brings the journal, never the folder picker.
        self.bring.setDefault(True)
        (self.field if url else self.place.kind).setFocus()

    # -- what was given -----------------------------------------------------------------------------

    def target(self) -> str:
        """The place as the core reads it, with a WebDAV login typed here in it (for this one call)."""
        url, login = self.place.url(), self.place.typed_login()
        return with_login(url, *login) if login and self.place.current_kind == WEBDAV else url

    def passphrase(self) -> str:
        return self.field.text()

    # -- states --------------------------------------------------------------------------------------

    def accept(self) -> None:
        """Bring my journal here: checked, then looked for (the dialog closes once the journal opens there)."""
        if not self.place.url():
            self.show_error(words.no_place())
            return
        if not self.field.text():
            self.show_error(self.tr("Type your journal's passphrase."))
            return
        self.error.hide()
        self._working(True)
        self.status.setText(words.join_progress("look", 0, 0))
        self.status.show()
        self.bar.show()
        grow_to_fit(self)
        self.bring_requested.emit()

    def finish(self) -> None:
        """The journal opened there: the dialog closes, the start-up window shows the rest."""
        super().accept()

    def show_failure(self, exc: BaseException) -> None:
        self.show_error(words.join_failure(exc, self.place.current_kind))

    def show_error(self, text: str) -> None:
        self._working(False)
        self.status.hide()
        self.bar.hide()
        self.error.setText(text)
        self.error.show()
        grow_to_fit(self)
        # Back to the field to correct (the working state had moved the focus to Cancel, so Enter cancelled).
        self.field.setFocus()
        self.field.selectAll()

    def _working(self, busy: bool) -> None:
        for widget in (self.place, self.field, self.bring):
            widget.setEnabled(not busy)
