"""`ProfilePage`: what memoir knows about you, by kind (people, places, work, health, …). Each memory
can be corrected or forgotten where it stands; each kind has a switch "Remember this kind of thing":
switched off, the write path keeps no new fact of that kind, and the ones already kept can be
forgotten in one action (with Undo).

For the keyboard and a screen reader each memory is a stop named by its words, its buttons say which
memory they act on, each kind's switch says which kind it is; after Forget the keyboard goes on to the
next memory's Forget (or to Undo)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.core.memories.actions import MemoriesChanged, MemoryChanged
from memoir_desktop.ui.journal.trash_view import ActionBar
from memoir_desktop.ui.shared.a11y import focus_stop, short
from memoir_desktop.ui.shared.refresh import RefreshWhenShown


def category_name(category: str) -> str:
    t = QCoreApplication.translate
    # Pets share the people group (a cat named 보리 is family, not a place or a habit): the name says so.
    names = {"people": QCoreApplication.translate("ProfilePage", "People and pets"),
             "places": QCoreApplication.translate("ProfilePage", "Places"),
             "work": QCoreApplication.translate("ProfilePage", "Work and study"),
             "health": QCoreApplication.translate("ProfilePage", "Health"),
             "preferences": QCoreApplication.translate("ProfilePage", "Likes and dislikes"),
             "habits": QCoreApplication.translate("ProfilePage", "Habits"),
             "plans": QCoreApplication.translate("ProfilePage", "Plans"),
             "feelings": QCoreApplication.translate("ProfilePage", "Feelings"),
             "events": QCoreApplication.translate("ProfilePage", "Things that happened"),
             "other": QCoreApplication.translate("ProfilePage", "Other")}
    return names.get(category) or t("ProfilePage", category)


REFRESH_DELAY_MS = 400  # a burst of changes (forget all of a kind) reloads once


class ProfileMemoryRow(QFrame):
    """One memory: its words, Edit (in place) and Forget."""

    def __init__(self, page: ProfilePage, memory: dict, parent=None):
        super().__init__(parent)
        self.page = page
        self.memory = memory
        self.setObjectName("profileRow")
        self.setFocusPolicy(Qt.TabFocus)
        self.setAccessibleName(memory["memory"])
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 2)
        self.text = QLabel(memory["memory"])
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.PlainText)
        self.text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.editor = QLineEdit(memory["memory"])
        self.editor.setAccessibleName(self.tr("Memory text"))
        self.editor.hide()
        self.editor.returnPressed.connect(self.save)
        row.addWidget(self.text, 1)
        row.addWidget(self.editor, 1)
        self.edit_button = QPushButton(self.tr("Edit"))
        self.edit_button.setAccessibleName(self.tr("Edit: {text}").format(text=short(memory["memory"])))
        self.forget_button = QPushButton(self.tr("Forget"))
        self.forget_button.setAccessibleName(self.tr("Forget: {text}").format(text=short(memory["memory"])))
        for button in (self.edit_button, self.forget_button):
            button.setObjectName("cardAction")
            row.addWidget(button, 0, Qt.AlignTop)
        self.edit_button.clicked.connect(self.toggle_edit)
        self.forget_button.clicked.connect(lambda: page.forget(self.memory))

    def toggle_edit(self) -> None:
        if self.editor.isVisible():
            self.save()
            return
        self.text.hide()
        self.editor.show()
        self.editor.setFocus()
        self.edit_button.setText(self.tr("Save"))
        self.edit_button.setAccessibleName(self.tr("Save: {text}").format(text=short(self.memory["memory"])))

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Escape and self.editor.isVisible():  # leave the text as it was
            event.accept()
            self.editor.setText(self.memory["memory"])
            self.save()
            self.edit_button.setFocus(Qt.OtherFocusReason)
            return
        super().keyPressEvent(event)

    def save(self) -> None:
        text = self.editor.text().strip()
        keyboard = self.editor.hasFocus()
        self.editor.hide()
        self.text.show()
        self.edit_button.setText(self.tr("Edit"))
        self.edit_button.setAccessibleName(self.tr("Edit: {text}").format(text=short(text or self.memory["memory"])))
        if keyboard:
            self.edit_button.setFocus(Qt.OtherFocusReason)
        if text and text != self.memory["memory"]:
            self.text.setText(text)
            self.page.edit(self.memory, text)


class ProfilePage(QWidget):
    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.groups: list[dict] = []
        self.rows: dict[str, ProfileMemoryRow] = {}
        self.switches: dict[str, QCheckBox] = {}
        self.last_box: QMessageBox | None = None
        self._order: list[str] = []  # memory ids in the order shown
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 8)
        title = QLabel(self.tr("What memoir knows about you"))
        title.setObjectName("welcomeTitle")
        layout.addWidget(title)
        intro = QLabel(self.tr("Everything memoir remembers from your journal, by kind. Correct or forget "
                               "anything here. Switch a kind off and memoir stops remembering that kind of "
                               "thing; your entries stay as you wrote them."))
        intro.setObjectName("muted")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setFocusPolicy(Qt.NoFocus)  # the memories take the keyboard; the area scrolls to them
        layout.addWidget(self.scroll, 1)
        self.bar = ActionBar()
        layout.addWidget(self.bar)
        self.refresh = RefreshWhenShown(self, self._load, REFRESH_DELAY_MS)
        backend.changed.connect(self._changed)

    def _changed(self, changes) -> None:
        if changes.memories or changes.settings:
            self.refresh.changed()

    def reload(self) -> None:
        self.refresh.run()

    def _load(self) -> None:
        self.backend.read(lambda m: m.reflection.profile(), self.show_profile)

    def _keyboard_place(self) -> tuple[str, str, int] | None:
        """Where the keyboard is on the page before it is drawn again: (part, memory or kind, place)."""
        focused = QApplication.focusWidget()
        if focused is None or not self.scroll.isAncestorOf(focused):
            return None
        rows = sorted((r for r in self.rows.values() if r.isVisible()),
                      key=lambda r: r.mapTo(self, r.rect().topLeft()).y())
        for i, row in enumerate(rows):
            if row is focused or row.isAncestorOf(focused):
                part = "forget" if focused is row.forget_button else "edit" if focused is row.edit_button else "row"
                return part, row.memory["id"], i
        for kind, switch in self.switches.items():
            if switch is focused:
                return "switch", kind, 0
        return None

    def _keyboard_back(self, place: tuple[str, str, int] | None) -> None:
        if place is None:
            return
        part, key, index = place
        if part == "switch":
            if key in self.switches:
                focus_stop(self.switches[key])
            return
        row = self.rows.get(key)
        if row is None:
            rows = [r for _m, r in sorted(self.rows.items(), key=lambda kv: self._order.index(kv[0]))]
            row = rows[min(index, len(rows) - 1)] if rows else None
        if row is not None:
            focus_stop({"forget": row.forget_button, "edit": row.edit_button}.get(part, row))

    def show_profile(self, groups: list[dict]) -> None:
        place = self._keyboard_place()
        self.groups = groups
        self.rows, self.switches = {}, {}
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 4, 8, 4)
        column.setSpacing(10)
        # Kinds with memories first; the empty ones after, so their switches stay reachable.
        ordered = sorted(groups, key=lambda g: not g["memories"])
        self._order = [m["id"] for g in ordered for m in g["memories"]]
        for group in ordered:
            column.addWidget(self._section(group))
        column.addStretch(1)
        self.scroll.setWidget(body)
        self._keyboard_back(place)

    def _section(self, group: dict) -> QFrame:
        frame = QFrame()
        frame.setObjectName("reflectionCard")
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(14, 8, 14, 8)
        head = QHBoxLayout()
        name = QLabel(f"<b>{category_name(group['category'])}</b>")
        head.addWidget(name)
        count = QLabel(self.tr("%n memory(ies)", None, len(group["memories"])) if group["memories"]
                       else self.tr("Nothing yet"))
        count.setObjectName("muted")
        head.addWidget(count)
        head.addStretch(1)
        switch = QCheckBox(self.tr("Remember this kind of thing"))
        switch.setAccessibleName(self.tr("Remember this kind of thing: {kind}").format(
            kind=category_name(group["category"])))
        switch.setChecked(group["remember"])
        switch.toggled.connect(lambda on, c=group["category"]: self.set_remembered(c, on))
        head.addWidget(switch)
        self.switches[group["category"]] = switch
        layout.addLayout(head)
        if not group["remember"]:
            off = QLabel(self.tr("memoir does not remember new things of this kind."))
            off.setObjectName("muted")
            layout.addWidget(off)
        for memory in group["memories"]:
            row = ProfileMemoryRow(self, memory)
            self.rows[memory["id"]] = row
            layout.addWidget(row)
        return frame

    # -- actions ------------------------------------------------------------------------------

    def edit(self, memory: dict, text: str) -> None:
        self.backend.change(lambda m: m.memories.update(memory["id"], text), lambda _m: self.bar.show_message(self.tr("Memory corrected.")),
                            lambda exc: self.bar.show_message(self.tr("Could not save this change: {error}")
                                                              .format(error=exc)))

    def forget(self, memory: dict) -> None:
        row = self.rows.get(memory["id"])
        to_undo = False
        if row is not None:
            keyboard = row.isAncestorOf(QApplication.focusWidget())
            following = self._row_after(row)
            row.hide()
            if keyboard and following is not None:  # on to the next memory's Forget
                focus_stop(following.forget_button)
            to_undo = keyboard and following is None

        def done(_forgotten: MemoryChanged) -> None:
            self.bar.show_message(self.tr("Forgotten: {text}").format(text=memory["memory"]), self.tr("Undo"),
                                  lambda: self.backend.change(lambda m: m.memories.restore(memory["id"])), shortcut="Ctrl+Z")
            if to_undo:  # no memory left after it: the keyboard goes to Undo
                focus_stop(self.bar.button)

        self.backend.change(lambda m: m.memories.delete(memory["id"]), done)

    def _row_after(self, row: ProfileMemoryRow) -> ProfileMemoryRow | None:
        """The memory shown after `row` on the page (or before it, for the last one)."""
        shown = [r for r in self.rows.values() if r is not row and r.isVisible()]
        shown.sort(key=lambda r: r.mapTo(self, r.rect().topLeft()).y())
        y = row.mapTo(self, row.rect().topLeft()).y()
        after = [r for r in shown if r.mapTo(self, r.rect().topLeft()).y() > y]
        return after[0] if after else (shown[-1] if shown else None)

    def set_remembered(self, category: str, remember: bool) -> None:
        group = next((g for g in self.groups if g["category"] == category), None)
        self.backend.change(lambda m: m.reflection.set_remembered(category, remember))
        if remember or group is None or not group["memories"]:
            return
        box = QMessageBox(QMessageBox.Question, self.tr("Forget these too?"),
                          self.tr("memoir won't remember new things of this kind. Also forget the %n it "
                                  "already remembers?", None, len(group["memories"])),
                          QMessageBox.NoButton, self)
        forget = box.addButton(self.tr("Forget them"), QMessageBox.DestructiveRole)
        box.addButton(self.tr("Keep them"), QMessageBox.RejectRole)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.finished.connect(lambda _r: box.clickedButton() is forget and self.forget_category(category))
        self.last_box = box
        box.open()

    def forget_category(self, category: str) -> None:
        def done(result: MemoriesChanged) -> None:
            ids = result.ids
            self.bar.show_message(self.tr("Forgot %n memory(ies) of this kind.", None, len(ids)), self.tr("Undo"),
                                  lambda: self.backend.change(lambda m: m.memories.restore_memories(ids)), shortcut="Ctrl+Z")

        self.backend.change(lambda m: m.memories.forget_category(category), done)
