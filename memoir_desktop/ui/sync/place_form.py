"""`PlaceForm`: where the journal is synced, as a diarist names it: a folder that a sync service carries
(with a folder picker), a WebDAV server (address, user name, password) or S3-compatible storage.

The address it gives is the core's (ui/sync/address.py) with nothing secret in it; the password is
only ever read from the field to be saved in the keyring (ui/sync/page.py) or used for one test."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.core.keys import crypto
from memoir_desktop.core.sync.target import describe
from memoir_desktop.ui.sync.address import FOLDER, S3, WEBDAV, kind_of, webdav_shown, webdav_url


def _note(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    return label


class PlaceForm(QWidget):
    def __init__(self, url: str, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.kind = QComboBox()
        self.kind.setAccessibleName(self.tr("Kind of place"))
        for label, value in ((self.tr("A folder (Dropbox, OneDrive, iCloud Drive, Syncthing…)"), FOLDER),
                             (self.tr("A WebDAV server (Nextcloud, a NAS…)"), WEBDAV),
                             (self.tr("S3-compatible storage"), S3)):
            self.kind.addItem(label, value)
        layout.addWidget(self.kind)
        # One shown at a time, hidden ones taking no room (a stack is as tall as its tallest page, and
        # guesses wrapped text's height: the folder's two lines sat above empty space).
        self.pages = [self._folder_page(), self._webdav_page(), self._s3_page()]
        for page in self.pages:
            layout.addWidget(page)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self._load(url)

    # -- the three kinds -------------------------------------------------------------------------

    def _folder_page(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 4, 0, 0)
        row = QHBoxLayout()
        self.folder = QLineEdit()
        self.folder.setAccessibleName(self.tr("Sync folder"))
        self.folder.setPlaceholderText(
            self.tr("A folder inside Dropbox, OneDrive, iCloud Drive or Syncthing"))
        self.choose = QPushButton(self.tr("Choose…"))
        self.choose.setAutoDefault(False)  # Enter in a dialog's field is its own button's, never the picker's
        self.choose.clicked.connect(self.choose_folder)
        row.addWidget(self.folder, 1)
        row.addWidget(self.choose)
        column.addLayout(row)
        column.addWidget(_note(self.tr("Choose a folder that your sync service keeps in step between your "
                                       "computers (or a shared drive). memoir writes only sealed files "
                                       "there; use the same folder on each computer.")))
        return page

    def _webdav_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 4, 0, 0)
        self.webdav = QLineEdit()
        self.webdav.setAccessibleName(self.tr("WebDAV address"))
        self.webdav.setPlaceholderText("https://cloud.example.com/remote.php/dav/files/me/memoir")
        form.addRow(self.tr("Address"), self.webdav)
        self.user = QLineEdit()
        self.user.setAccessibleName(self.tr("User name"))
        form.addRow(self.tr("User name"), self.user)
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setAccessibleName(self.tr("Password"))
        form.addRow(self.tr("Password"), self.password)
        self.keyring_note = _note(
            self.tr("The password is kept in the system keyring, never in a file.")
            if crypto.keyring_available() else
            self.tr("This computer has no system keyring, so memoir keeps the password only until you "
                    "close it, and asks for it again next time."))
        form.addRow("", self.keyring_note)
        return page

    def _s3_page(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 4, 0, 0)
        self.s3 = QLineEdit()
        self.s3.setAccessibleName(self.tr("S3 address"))
        self.s3.setPlaceholderText("s3://bucket/folder")
        column.addWidget(self.s3)
        column.addWidget(_note(self.tr("The access keys come from this computer's usual AWS settings (the "
                                       "AWS command line's configuration), never from memoir. For MinIO, R2 "
                                       "or B2, set their endpoint in the same settings.")))
        return page

    # -- values ------------------------------------------------------------------------------------

    def _load(self, url: str) -> None:
        kind = kind_of(url) if url else FOLDER
        self.kind.setCurrentIndex(self.kind.findData(kind))
        self._kind_changed(self.kind.currentIndex())
        if kind == WEBDAV:
            self.webdav.setText(webdav_shown(url))
        elif kind == S3:
            self.s3.setText(url)
        elif url:
            parts = urlsplit(url)
            # file:///… (memoir-cli's form) shown as the path it names; file://server/share as it is.
            local = parts.scheme == "file" and not parts.netloc
            self.folder.setText(url2pathname(parts.path) if local else url)

    def _kind_changed(self, index: int) -> None:
        for i, page in enumerate(self.pages):
            page.setVisible(i == index)

    @property
    def current_kind(self) -> str:
        return self.kind.currentData()

    def url(self) -> str:
        """The address as core/sync reads it (no login in it); "" when none is given."""
        kind = self.current_kind
        if kind == WEBDAV:
            typed = self.webdav.text().strip()
            return describe(webdav_url(typed)) if typed else ""
        if kind == S3:
            return self.s3.text().strip()
        return self.folder.text().strip()

    def typed_login(self) -> tuple[str, str] | None:
        """(user, password) typed now (or typed into the address), or None when no password was typed."""
        if self.current_kind != WEBDAV:
            return None
        parts = urlsplit(webdav_url(self.webdav.text().strip()))
        user = self.user.text().strip() or unquote(parts.username or "")
        password = self.password.text() or unquote(parts.password or "")
        return (user, password) if user and password else None

    def choose_folder(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Choose the sync folder"), self.folder.text())
        if chosen:
            self.folder.setText(chosen)
