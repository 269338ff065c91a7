"""The File menu's dialogs: export, import (with its reading progress), the memory building of an
import (a status-bar panel: it can take hours with a slow AI, so it must not hold a dialog open),
and choosing a backup to restore.

Threading rule: every job goes through `AsyncMemoir`; these widgets only show its progress.
A file picker is never opened by the tests: the path fields are plain line edits.
"""

from __future__ import annotations

import os
from datetime import date, datetime
from pathlib import Path

from PySide6.QtCore import QLocale, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QCheckBox,
    QDialog,
    QFileDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QToolButton,
    QVBoxLayout,
)

from memoir_desktop.core.archive import transfer
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.inputs import InvalidInput
from memoir_desktop.core.keys import crypto
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.shared.a11y import readable
from memoir_desktop.ui.shared.fit import grow_to_fit, show_whole
from memoir_desktop.ui.shared.folders import documents_folder
from memoir_desktop.ui.shared.formatting import long_date, short_time
from memoir_desktop.ui.shared.reasons import reason

POLL_MS = 1_000  # how often the memory building of an import is looked at
FORMATS = ("json", "md", "txt")


def _muted(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    return label


def _path_row(edit: QLineEdit, choose: QPushButton) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    row.addWidget(choose)
    return row


def _set_error(label: QLabel, error: bool) -> None:
    """Red for a failure (the style sheet's colour for a removed memory), the usual colour otherwise."""
    label.setObjectName("opDelete" if error else "")
    label.style().unpolish(label)
    label.style().polish(label)


class WhereItIsBox(QMessageBox):
    """Where a file or folder is, for a desktop where no folder window opens (no file manager, or none
    memoir can reach): the place can be selected, and Copy puts it on the clipboard."""

    def __init__(self, text: str, place: Path, parent=None):
        super().__init__(QMessageBox.Information, "", text, QMessageBox.Ok, parent)
        self.setWindowTitle(self.tr("Where to find it"))
        self.place = str(place)
        self.setInformativeText(self.place)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.copy_button = self.addButton(self.tr("Copy the location"), QMessageBox.ActionRole)
        self.copy_button.clicked.connect(lambda: QApplication.clipboard().setText(self.place))
        self.setDefaultButton(QMessageBox.Ok)
        self.setAttribute(Qt.WA_DeleteOnClose)


def show_in_folder(path: Path, parent, text: str, place: Path | None = None) -> WhereItIsBox | None:
    """Open the folder of `path` (or `path` itself, a folder) in a folder window. Where none opens,
    a box says `text` and where it is (`place`, else `path`); the box is returned."""
    folder = path if path.is_dir() else path.parent
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        return None
    box = WhereItIsBox(text, place or path, parent)
    box.open()
    return box


# -- export -------------------------------------------------------------------------------------------


class ExportDialog(QDialog):
    """What (a memoir backup, Markdown, plain text), how (one file or one per day), where."""

    exported = Signal(list)  # the paths written

    # Long: the dialog's form built in reading order (field, its help, its error line).
    def __init__(self, backend, parent=None, folder: Path | None = None):
        super().__init__(parent)
        self.backend = backend
        self.folder = folder or documents_folder()
        self.stem = f"memoir-{date.today().isoformat()}"
        self.written: list[str] = []
        self.setWindowTitle(self.tr("Export your journal"))
        layout = QVBoxLayout(self)
        layout.setSizeConstraint(QLayout.SetMinimumSize)  # as wide as the path, as tall as the sentences

        what = QGroupBox(self.tr("What to export"))
        what_layout = QVBoxLayout(what)
        self.format_group = QButtonGroup(self)
        choices = {
            "json": (self.tr("memoir backup (JSON)"),
                     self.tr("Everything: entries, memories, their history and the graph. memoir can import "
                             "it again.")),
            "md": (self.tr("Markdown"), self.tr("Your entries for Obsidian or any notes app, with their dates and "
                                                 "tags as properties. memoir can import them again.")),
            "txt": (self.tr("Plain text"), self.tr("Your entries, day by day.")),
        }
        self.format_buttons: dict[str, QRadioButton] = {}
        for i, key in enumerate(FORMATS):
            title, description = choices[key]
            button = QRadioButton(title)
            button.setAccessibleDescription(description)
            self.format_group.addButton(button, i)
            what_layout.addWidget(button)
            note = _muted(description)
            note.setContentsMargins(24, 0, 0, 4)  # under the radio's text, not its circle
            what_layout.addWidget(note)
            self.format_buttons[key] = button
        self.format_buttons["json"].setChecked(True)
        # A plain export holds every entry in clear text, whatever protects the journal itself.
        self.plain_warning = _muted(self.tr("These files are not encrypted: anyone who gets them can read your "
                                            "journal. File → Export encrypted protects the file with a passphrase."))
        self.plain_warning.setObjectName("opDelete")
        what_layout.addWidget(self.plain_warning)
        layout.addWidget(what)

        self.how = QGroupBox(self.tr("Files"))
        how_layout = QVBoxLayout(self.how)
        self.one_file = QRadioButton(self.tr("One file"))
        self.per_day = QRadioButton(self.tr("One file per day, in a folder"))
        self.per_entry = QRadioButton(self.tr("One note per entry, in a folder (for Obsidian)"))
        self.one_file.setChecked(True)
        how_layout.addWidget(self.one_file)
        how_layout.addWidget(self.per_day)
        how_layout.addWidget(self.per_entry)
        # Notes apps share their folder with sync services and AI plugins: a private entry, kept from
        # every AI, goes there only when asked for.
        self.include_private = QCheckBox(self.tr("Include private entries (marked private)"))
        how_layout.addWidget(self.include_private)
        self.private_note = _muted(self.tr("Private entries are left out unless you include them: notes apps "
                                           "often share their folder with sync services and AI tools."))
        how_layout.addWidget(self.private_note)
        layout.addWidget(self.how)

        layout.addWidget(QLabel(self.tr("Save to")))
        self.path_edit = QLineEdit()
        self.path_edit.setAccessibleName(self.tr("Save to"))
        show_whole(self.path_edit)
        self.choose_button = QPushButton(self.tr("Choose…"))
        self.choose_button.clicked.connect(self.choose)
        layout.addLayout(_path_row(self.path_edit, self.choose_button))

        self.warning = _muted(self.tr("The export is not encrypted: anyone who has the file can read your "
                                      "journal. Keep it somewhere safe."))
        layout.addWidget(self.warning)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.bar.hide()
        layout.addWidget(self.bar)
        self.result = QLabel()
        self.result.setWordWrap(True)
        readable(self.result)  # where the file went: read and copied from the keyboard too
        self.result.hide()
        layout.addWidget(self.result)

        buttons = QHBoxLayout()
        self.show_button = QPushButton(self.tr("Show in folder"))
        self.show_button.clicked.connect(self.show_folder)
        self.where_box: WhereItIsBox | None = None
        self.show_button.hide()
        buttons.addWidget(self.show_button)
        buttons.addStretch(1)
        self.close_button = QPushButton(self.tr("Close"))
        self.close_button.clicked.connect(self.reject)
        self.export_button = QPushButton(self.tr("Export"))
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        buttons.addWidget(self.close_button)
        buttons.addWidget(self.export_button)
        layout.addLayout(buttons)

        self.format_group.idToggled.connect(lambda _id, on: on and self._kind_changed())
        self.per_day.toggled.connect(lambda _on: self._kind_changed())
        self.per_entry.toggled.connect(lambda _on: self._kind_changed())
        self._kind_changed()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        grow_to_fit(self)

    @property
    def fmt(self) -> str:
        return FORMATS[max(0, self.format_group.checkedId())]

    @property
    def by_day(self) -> bool:
        return self.fmt != "json" and self.per_day.isChecked()

    @property
    def by_entry(self) -> bool:
        return self.fmt == "md" and self.per_entry.isChecked()

    @property
    def to_folder(self) -> bool:
        return self.by_day or self.by_entry

    def set_format(self, fmt: str, per_day: bool = False, per_entry: bool = False) -> None:
        self.format_buttons[fmt].setChecked(True)
        (self.per_entry if per_entry else self.per_day if per_day else self.one_file).setChecked(True)

    def _default_path(self) -> Path:
        return self.folder / (self.stem if self.to_folder else f"{self.stem}.{self.fmt}")

    def _kind_changed(self) -> None:
        """Another kind of export: same folder and name, the suffix (or a folder) to match."""
        self.how.setEnabled(self.fmt != "json")
        self.per_entry.setEnabled(self.fmt == "md")  # notes with properties are Markdown's
        if self.per_entry.isChecked() and self.fmt != "md":
            self.per_day.setChecked(True)
        text = self.path_edit.text().strip()
        if text:
            current = Path(text).expanduser()
            self.folder = current.parent
            self.stem = current.stem if current.suffix.lower() in (".json", ".md", ".txt") else current.name
        self.path_edit.setText(str(self._default_path()))

    def choose(self) -> None:
        if self.to_folder:
            chosen = QFileDialog.getExistingDirectory(self, self.tr("Choose a folder for the files"),
                                                      str(self.folder))
        else:
            filters = {"json": self.tr("memoir backup (*.json)"), "md": self.tr("Markdown (*.md)"),
                       "txt": self.tr("Plain text (*.txt)")}
            chosen, _ = QFileDialog.getSaveFileName(self, self.tr("Export to"), self.path_edit.text(),
                                                    filters[self.fmt])
        if chosen:
            self.path_edit.setText(chosen)

    def export(self) -> None:
        path = self.path_edit.text().strip()
        if not path:
            self._show_result(self.tr("Choose where to save the export."), error=True)
            return
        target = Path(path).expanduser()
        if not self.to_folder and target.suffix.lower() != f".{self.fmt}":
            target = target.with_name(f"{target.name}.{self.fmt}")
        try:
            (target if self.to_folder else target.parent).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._failed(exc)
            return
        self._busy(True)
        if self.fmt == "json":
            self.backend.read(lambda m: m.archive.export(str(target)), lambda _counts: self._done([str(target)]), self._failed)
        else:
            fmt, by_day, by_entry, lang = self.fmt, self.by_day, self.by_entry, i18n.current()
            private = self.include_private.isChecked()
            self.backend.read(lambda m: m.archive.export_text(str(target), fmt=fmt, per_day=by_day, per_entry=by_entry,
                                                              lang=lang, include_private=private),
                              lambda done: self._done(list(done), self._left_out(done)), self._failed)

    def show_folder(self) -> WhereItIsBox | None:
        if not self.written:
            return None
        first = Path(self.written[0])
        if self.to_folder:
            text = self.tr("memoir could not open a folder window on this computer. Your export is "
                           "in this folder:")
            place = first.parent
        else:
            text = self.tr("memoir could not open a folder window on this computer. Your export is "
                           "saved here:")
            place = first
        self.where_box = show_in_folder(first, self, text, place)
        return self.where_box

    def _busy(self, busy: bool) -> None:
        self.bar.setVisible(busy)
        self.export_button.setEnabled(not busy)
        if busy:
            self.result.hide()
            self.show_button.hide()

    def _left_out(self, done) -> str:
        """What the files do not hold, in words (archive.export_text counts it)."""
        parts = []
        if done.left_out["private"]:
            parts.append(self.tr("%n private entry(ies) left out.", None, int(done.left_out["private"])))
        if done.left_out["trash"]:
            parts.append(self.tr("%n entry(ies) in the trash left out.", None, int(done.left_out["trash"])))
        parts.append(self.tr("Memories and the graph are only in a memoir backup (JSON)."))
        return " ".join(parts)

    def _done(self, paths: list[str], left_out: str = "") -> None:
        self._busy(False)
        self.written = list(paths)
        if self.to_folder:
            folder = Path(paths[0]).parent if paths else Path(self.path_edit.text())
            text = self.tr("Saved %n file(s) in {folder}", None, len(paths)).format(folder=folder)
        elif paths:
            text = self.tr("Saved to {path}").format(path=paths[0])
        else:
            text = self.tr("There was nothing to export yet.")
        self._show_result(f"{text} {left_out}" if left_out else text)
        self.show_button.setVisible(bool(paths))
        self.adjustSize()
        self.exported.emit(self.written)

    def _failed(self, exc: BaseException) -> None:
        self._busy(False)
        self._show_result(self.tr("The export could not be saved: {error}").format(error=reason(exc)),
                          error=True)

    def _show_result(self, text: str, error: bool = False) -> None:
        _set_error(self.result, error)
        self.result.setText(text)
        self.result.show()


# -- import -------------------------------------------------------------------------------------------


def import_file(backend, path: str, on_done=None, on_error=None, passphrase: str | None = None) -> None:
    """Read a memoir or Day One export on the writer; `import_progress(done, total)` while it is read. The
    memories of a Day One import are then made in the background (batch_progress). An encrypted export
    needs its passphrase (a wrong one fails with crypto.WrongPassphrase, nothing changed)."""
    def work(mem) -> dict:
        result = mem.archive.import_file(path, progress=lambda d, t: backend.import_progress.emit(d, t), passphrase=passphrase)
        if result.get("kind") == "memoir":  # a memoir import can bring any kind of thing
            changes = Changes.from_dict(result.get("changes")) | Changes(graph=True, proposals=True)
            result = {**result, "changes": changes.to_dict()}
        return result

    backend.change(work, on_done, on_error, poke=True)


class ImportDialog(QDialog):
    """Choose a memoir backup, memoir's Markdown or a Day One export; shows the reading progress, then what
    came in. The memories of a Day One or Markdown import are then made in the background:
    `batch_started(batch, total)`."""

    batch_started = Signal(str, int)
    imported = Signal(dict)

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.outcome: dict | None = None
        self.error_text = ""
        self.setWindowTitle(self.tr("Import"))
        layout = QVBoxLayout(self)
        layout.setSizeConstraint(QLayout.SetMinimumSize)  # as wide as the path, as tall as the sentences
        layout.addWidget(_muted(self.tr("Bring in entries from a memoir backup (.json), an encrypted export "
                                        "(.memoir), memoir's Markdown export (a .md file, or the folder of "
                                        "its files: write the folder's path) or a Day One export (the .zip "
                                        "or .json file Day One makes).")))
        self.path_edit = QLineEdit()
        self.path_edit.setAccessibleName(self.tr("File to import"))
        self.path_edit.setPlaceholderText(self.tr("Choose a file…"))
        show_whole(self.path_edit)
        self.choose_button = QPushButton(self.tr("Choose…"))
        self.choose_button.clicked.connect(self.choose)
        layout.addLayout(_path_row(self.path_edit, self.choose_button))
        self.step = QLabel()
        self.step.setWordWrap(True)
        self.step.hide()
        layout.addWidget(self.step)
        self.bar = QProgressBar()
        self.bar.setAccessibleName(self.tr("Import progress"))
        self.bar.hide()
        layout.addWidget(self.bar)
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.hide()
        layout.addWidget(self.result)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.close_button = QPushButton(self.tr("Close"))
        self.close_button.clicked.connect(self.reject)
        self.import_button = QPushButton(self.tr("Import"))
        self.import_button.setDefault(True)
        self.import_button.clicked.connect(self.start)
        buttons.addWidget(self.close_button)
        buttons.addWidget(self.import_button)
        layout.addLayout(buttons)
        backend.import_progress.connect(self._progress)
        self._running = False

    def choose(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import"), str(documents_folder()),
            self.tr("memoir backup, Markdown export or Day One export (*.json *.memoir *.md *.zip)"))
        if chosen:
            self.path_edit.setText(chosen)

    def start(self) -> None:
        path = self.path_edit.text().strip()
        if not path:
            self._error(self.tr("Choose a file to import first."))
            return
        self.name = Path(path).name
        passphrase = None
        if transfer.is_encrypted_export(path):
            passphrase = self.ask_passphrase()
            if not passphrase:
                return
        self._running = True
        self.import_button.setEnabled(False)
        self.choose_button.setEnabled(False)
        self.path_edit.setEnabled(False)
        self.result.hide()
        self.step.setText(self.tr("Reading ‘{name}’…").format(name=self.name))
        self.step.show()
        self.bar.setRange(0, 0)  # busy until the reader knows how many entries there are
        self.bar.show()
        self.adjustSize()
        import_file(self.backend, path, self._done, self._failed, passphrase=passphrase)

    def ask_passphrase(self) -> str | None:
        """The passphrase of an encrypted export (chosen when it was exported); None when declined."""
        question = QInputDialog(self)
        question.setWindowTitle(self.tr("Encrypted export"))
        question.setLabelText(self.tr("‘{name}’ is locked with a passphrase. Enter the one you chose when you "
                                      "exported it.").format(name=self.name))
        question.setTextEchoMode(QLineEdit.Password)
        question.setOkButtonText(self.tr("Import"))
        question.setCancelButtonText(self.tr("Cancel"))
        try:
            return question.textValue() if question.exec() == QInputDialog.Accepted else None
        finally:
            question.deleteLater()

    def _progress(self, done: int, total: int) -> None:
        if not self._running:
            return
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        self.step.setText(self.tr("Reading ‘{name}’: {done} of {total} entries").format(
            name=self.name, done=done, total=total))

    def _done(self, outcome: dict) -> None:
        self._running = False
        self.outcome = outcome
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self.step.hide()
        self.bar.hide()
        self.import_button.hide()
        self.close_button.setText(self.tr("Done"))
        self.close_button.setDefault(True)
        self.result.setText(self.summary(outcome))
        _set_error(self.result, False)
        self.result.show()
        self.adjustSize()
        self.imported.emit(outcome)
        # The entries whose memories are now made (a Markdown import's private ones, replies and letters have none).
        memorizing = int(outcome.get("memorizing", outcome.get("entries", 0)))
        if outcome.get("kind") in ("dayone", "markdown") and memorizing:
            self.batch_started.emit(outcome["batch"], memorizing)

    def summary(self, outcome: dict) -> str:
        if outcome.get("kind") == "memoir":
            return self.tr("Imported {entries} entries and {memories} memories from the memoir backup.").format(
                entries=outcome.get("entries", 0), memories=outcome.get("memories", 0))
        if outcome.get("kind") == "markdown":
            parts = [self.tr("Imported %n entry(ies) from memoir's Markdown.", None, int(outcome.get("entries", 0)))]
            if outcome.get("already_there"):
                parts.append(self.tr("%n were already in your journal.", None, int(outcome["already_there"])))
            if outcome.get("private"):
                parts.append(self.tr("%n of them are private, as they were.", None, int(outcome["private"])))
            if outcome.get("entries"):
                parts.append(self.tr("memoir now makes memories from them in the background: you can follow it "
                                     "at the bottom of the window, and keep writing meanwhile."))
            return " ".join(parts)
        parts = [self.tr("Imported %n entry(ies) from Day One.", None, int(outcome.get("entries", 0)))]
        cut = outcome.get("cut_short")
        if cut:  # an import killed before (core/archive/service.py): said, and completed by this one
            parts.insert(0, self.tr("The import of ‘{file}’ begun earlier was cut short after {done} of {total} "
                                    "entries; this one brought in the rest.").format(
                file=cut.get("file", ""), done=cut.get("done", 0), total=cut.get("total", 0)))
        if outcome.get("already_there"):
            parts.append(self.tr("%n were already in your journal.", None, int(outcome["already_there"])))
        if outcome.get("skipped"):
            parts.append(self.tr("%n empty entry(ies) left out.", None, int(outcome["skipped"])))
        kinds = outcome.get("media_kinds") or {}
        counted = [self._attachments(kind, int(kinds[kind])) for kind in ("photo", "video", "audio", "pdf")
                   if kinds.get(kind)]
        if counted:
            parts.append(self.tr("{attachments} were not brought in: memoir keeps the text only.").format(
                attachments=", ".join(counted)))
        if outcome.get("starred"):
            parts.append(self.tr("%n entry(ies) were starred in Day One; stars are not kept.", None,
                                 int(outcome["starred"])))
        if outcome.get("located"):
            parts.append(self.tr("%n entry(ies) had a location; locations are not kept.", None,
                                 int(outcome["located"])))
        if outcome.get("entries"):
            parts.append(self.tr("memoir now makes memories from them in the background: you can follow it at "
                                 "the bottom of the window, and keep writing meanwhile."))
        return " ".join(parts)

    def _attachments(self, kind: str, n: int) -> str:
        return {"photo": lambda: self.tr("%n photo(s)", None, n), "video": lambda: self.tr("%n video(s)", None, n),
                "audio": lambda: self.tr("%n audio recording(s)", None, n),
                "pdf": lambda: self.tr("%n PDF(s)", None, n)}[kind]()

    def _failed(self, exc: BaseException) -> None:
        self._running = False
        self.import_button.setEnabled(True)
        self.choose_button.setEnabled(True)
        self.path_edit.setEnabled(True)
        self.step.hide()
        self.bar.hide()
        if isinstance(exc, crypto.WrongPassphrase):
            text = self.tr("That passphrase does not open ‘{name}’; try again.").format(name=self.name)
        elif isinstance(exc, InvalidInput):
            text = self.tr("‘{name}’ could not be imported: it is not a memoir backup or a Day One export, "
                           "or it is damaged.").format(name=self.name)
        elif isinstance(exc, OSError):
            text = self.tr("‘{name}’ could not be read: {error}").format(name=self.name, error=reason(exc))
        else:
            text = self.tr("‘{name}’ could not be imported: {error}").format(name=self.name, error=reason(exc))
        self._error(text, detail=str(exc))

    def _error(self, text: str, detail: str = "") -> None:
        self.error_text = text
        _set_error(self.result, True)
        self.result.setText(text)
        self.result.setToolTip(detail)
        self.result.show()
        self.adjustSize()


class BatchProgressPanel(QFrame):
    """In the status bar: the memories of an import being made. Stop (the entries stay) and Resume."""

    finished = Signal(dict)

    def __init__(self, backend, batch: str, total: int, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.batch = batch
        self.total = total
        self.progress: dict = {"total": total, "done": 0, "failed": 0, "pending": total, "cancelled": 0}
        self.state = "running"  # running | waiting-for-ai | stopping | stopped | done
        self._stopping = False
        self._resuming = False  # Resume pressed, its change not yet written
        self._resumes = 0  # Resumes written: a look taken before the last one is stale
        self._polling = False
        self._reported = False
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.setSpacing(6)
        self.label = QLabel()
        layout.addWidget(self.label)
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(140)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.bar.setAccessibleName(self.tr("Memories made from the import"))
        layout.addWidget(self.bar)
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Stop making memories from these entries. The entries stay in "
                                            "your journal; you can resume later."))
        self.stop_button.clicked.connect(self.cancel)
        self.resume_button = QPushButton(self.tr("Resume"))
        self.resume_button.clicked.connect(self.resume)
        self.resume_button.hide()
        self.dismiss_button = QToolButton()
        self.dismiss_button.setText("×")
        self.dismiss_button.setAccessibleName(self.tr("Dismiss"))
        self.dismiss_button.setAutoRaise(True)
        self.dismiss_button.clicked.connect(self.dismiss)
        self.dismiss_button.hide()
        for button in (self.stop_button, self.resume_button):
            layout.addWidget(button)
        layout.addWidget(self.dismiss_button)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self._show()
        self.timer.start()
        QTimer.singleShot(0, self.poll)

    def poll(self) -> None:
        if self._polling:
            return  # the last look has not come back yet (a busy reads pool)
        self._polling = True
        batch, since = self.batch, self._resumes
        self.backend.read(lambda m: m.archive.batch_progress(batch), lambda p: self._update(p, since))

    def _update(self, progress: dict, since: int | None = None) -> None:
        self._polling = False
        if self._resuming or (since is not None and since != self._resumes):
            # A look taken before Resume was written: taken as it is, it said "stopped", stopped the
            # polling for good, and the panel never saw the entries' memories made.
            if not self._resuming:
                self.poll()
            return
        self.progress = progress
        self.total = progress.get("total") or self.total
        self._show()

    def _show(self) -> None:
        p = self.progress
        total, done, failed = self.total, p.get("done", 0), p.get("failed", 0)
        pending, cancelled = p.get("pending", 0), p.get("cancelled", 0)
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done + failed)
        self.bar.setToolTip(self.tr("{done} of {total}").format(done=done + failed, total=total))
        if pending == 0 and cancelled == 0:
            self.state = "done"
            text = self.tr("✓ Memories made from %n entry(ies)", None, total)
            if failed:
                text += " · " + self.tr("%n could not be made", None, failed)
            self.timer.stop()
        elif pending == 0:
            self.state = "stopped"
            self._stopping = False
            self.timer.stop()  # until Resume
            text = self.tr("Stopped: memories made from {done} of {total} entries. The entries are all in your "
                           "journal.").format(done=done, total=total)
        elif self._stopping:
            self.state = "stopping"
            text = self.tr("Stopping after the entry being read…")
        elif not self.backend.llm_configured:
            self.state = "waiting-for-ai"
            text = self.tr("Memories from %n entry(ies) will be made once an AI is connected.", None, pending)
        else:
            self.state = "running"
            text = self.tr("Making memories from %n entry(ies)", None, total) + f" · {done + failed}/{total}"
        self.label.setText(text)
        self.bar.setVisible(self.state in ("running", "stopping", "stopped"))
        self.stop_button.setVisible(self.state in ("running", "waiting-for-ai"))
        self.resume_button.setVisible(self.state == "stopped")
        self.dismiss_button.setVisible(self.state in ("done", "stopped"))
        if self.state == "done" and not self._reported:
            self._reported = True
            self.finished.emit(p)

    def cancel(self) -> None:
        self._stopping = True
        self._show()
        # "Stopping" until the entry being read now is done (pending counts it): then "stopped".
        batch = self.batch
        self.backend.change(lambda m: m.archive.cancel_batch(batch), lambda _count: self.poll())

    def resume(self) -> None:
        self._stopping = False
        self._resuming = True
        self.timer.start()
        batch = self.batch
        self.backend.change(lambda m: m.archive.resume_batch(batch), self._resumed, poke=True)
        self.progress = {**self.progress, "pending": self.progress.get("cancelled", 0), "cancelled": 0}
        self._show()

    def _resumed(self, _count) -> None:
        self._resuming = False
        self._resumes += 1
        self.poll()

    def dismiss(self) -> None:
        self.timer.stop()
        self.hide()
        self.deleteLater()


# -- restore a backup ------------------------------------------------------------------------------------


def backup_time(path: str | Path) -> datetime | None:
    """When a backup was made, from its name (memoir-YYYYmmdd-HHMMSS.db)."""
    stem = Path(path).stem
    try:
        return datetime.strptime(stem.split("-", 1)[1], "%Y%m%d-%H%M%S")
    except (IndexError, ValueError):
        return None


def when_text(when: datetime | None) -> str:
    return f"{long_date(when.date())} {short_time(when)}" if when else ""


class RestoreBackupDialog(QDialog):
    """Backups newest first, with their dates and sizes; Restore asks first, then `restore_chosen`."""

    restore_chosen = Signal(str)

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.confirm_box: QMessageBox | None = None
        self.paths: list[str] = []
        self.setWindowTitle(self.tr("Restore a backup"))
        self.setMinimumSize(480, 360)
        layout = QVBoxLayout(self)
        layout.addWidget(_muted(self.tr("memoir backs up your journal each day and keeps the last few. "
                                        "Restoring puts the journal back as it was at that moment.")))
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Backups"))
        self.list.currentRowChanged.connect(lambda row: self.restore_button.setEnabled(row >= 0))
        self.list.itemDoubleClicked.connect(lambda _item: self.ask())
        layout.addWidget(self.list, 1)
        self.empty = _muted(self.tr("Looking for backups…"))
        layout.addWidget(self.empty)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        cancel = QPushButton(self.tr("Cancel"))
        cancel.clicked.connect(self.reject)
        self.restore_button = QPushButton(self.tr("Restore…"))
        self.restore_button.setEnabled(False)
        self.restore_button.clicked.connect(self.ask)
        buttons.addWidget(cancel)
        buttons.addWidget(self.restore_button)
        layout.addLayout(buttons)
        backend.read(lambda m: m.archive.backups(), self.set_backups)

    def set_backups(self, paths: list[str]) -> None:
        self.paths = list(paths)  # newest first (core/archive/backup.py)
        self.list.clear()
        locale = QLocale()
        for path in self.paths:
            try:
                size = locale.formattedDataSize(os.path.getsize(path), 1,
                                                QLocale.DataSizeFormat.DataSizeTraditionalFormat)
            except OSError:
                size = ""
            text = " · ".join(p for p in (when_text(backup_time(path)) or Path(path).name, size) if p)
            item = QListWidgetItem(text)
            item.setData(Qt.UserRole, path)
            item.setToolTip(path)
            self.list.addItem(item)
        if self.paths:
            self.empty.hide()
            self.list.setCurrentRow(0)
        else:
            self.empty.setText(self.tr("There are no backups yet. memoir makes one each day you open your "
                                       "journal, and File → Back up now makes one at once."))

    def ask(self) -> QMessageBox | None:
        item = self.list.currentItem()
        if item is None:
            return None
        path = item.data(Qt.UserRole)
        when = when_text(backup_time(path)) or Path(path).name
        box = QMessageBox(QMessageBox.Question, self.tr("Restore this backup?"),
                          self.tr("Put the journal back as it was on {date}?").format(date=when),
                          QMessageBox.Yes | QMessageBox.Cancel, self)
        box.setInformativeText(self.tr("Entries and memories added after that will not be in the journal. Your "
                                       "journal as it is now is not deleted: it is kept as a file in the data "
                                       "folder. memoir closes the journal and opens it again."))
        box.button(QMessageBox.Yes).setText(self.tr("Restore backup"))
        box.setDefaultButton(QMessageBox.Cancel)
        box.finished.connect(lambda result: self._answered(box, path))
        self.confirm_box = box
        box.open()
        return box

    def _answered(self, box: QMessageBox, path: str) -> None:
        if box.clickedButton() is box.button(QMessageBox.Yes):
            self.restore_chosen.emit(path)
            self.accept()
