"""Cards above a day's conversation that bring the past back: On This Day (the same date a month
and years ago, each a click into that day), follow-ups on plans whose date has passed (write about
it, or not now), and a new weekly / monthly letter to read."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from memoir_desktop.ui.shared.a11y import short
from memoir_desktop.ui.shared.formatting import long_date

MAX_MEMORIES_SHOWN = 2


def looking_back_label(group: dict) -> str:
    """"A month ago today", "1 year ago today", "3 years ago today"."""
    if group.get("months_ago"):
        return QCoreApplication.translate("OnThisDayCard", "A month ago today")
    return QCoreApplication.translate("OnThisDayCard", "%n year(s) ago today", None, int(group["years_ago"]))


def _card(title: str) -> tuple[QFrame, QVBoxLayout]:
    frame = QFrame()
    frame.setObjectName("reflectionCard")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(14, 10, 14, 10)
    layout.setSpacing(4)
    label = QLabel(title)
    label.setObjectName("reflectionTitle")
    layout.addWidget(label)
    return frame, layout


def _muted(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    label.setTextFormat(Qt.PlainText)
    return label


class OnThisDayCard(QFrame):
    open_day = Signal(object)  # date

    def __init__(self, groups: list[dict], parent=None):
        super().__init__(parent)
        self.groups = groups
        self.setObjectName("reflectionCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(6)
        title = QLabel(self.tr("On this day"))
        title.setObjectName("reflectionTitle")
        layout.addWidget(title)
        self.buttons: list[QPushButton] = []
        for group in groups:
            day = date.fromisoformat(group["date"])
            button = QPushButton(f"{looking_back_label(group)} · {long_date(day)}")
            button.setObjectName("linkButton")
            button.setCursor(Qt.PointingHandCursor)
            button.setAccessibleName(self.tr("Open {date}").format(date=long_date(day)))
            button.clicked.connect(lambda _checked=False, d=day: self.open_day.emit(d))
            row = QHBoxLayout()
            row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)
            self.buttons.append(button)
            for entry in group["entries"][:1]:
                layout.addWidget(_muted(entry["snippet"]))
            shown = {e["snippet"] for e in group["entries"][:1]}
            for memory in [m for m in group["memories"] if m["memory"] not in shown][:MAX_MEMORIES_SHOWN]:
                layout.addWidget(_muted("· " + memory["memory"]))


class FollowUpCard(QFrame):
    write_requested = Signal(dict)
    dismiss_requested = Signal(dict)

    def __init__(self, followup: dict, parent=None):
        super().__init__(parent)
        self.followup = followup
        self.setObjectName("reflectionCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(6)
        title = QLabel(self.tr("How did it go?"))
        title.setObjectName("reflectionTitle")
        layout.addWidget(title)
        self.question = QLabel(followup["question"])
        self.question.setObjectName("followUpQuestion")
        self.question.setWordWrap(True)
        self.question.setTextFormat(Qt.PlainText)
        layout.addWidget(self.question)
        row = QHBoxLayout()
        self.write_button = QPushButton(self.tr("Write about it"))
        self.write_button.setObjectName("cardAction")
        self.write_button.setAccessibleName(self.tr("Write about it: {question}").format(
            question=short(followup["question"])))
        self.write_button.clicked.connect(lambda: self.write_requested.emit(self.followup))
        self.dismiss_button = QPushButton(self.tr("Not now"))
        self.dismiss_button.setObjectName("cardAction")
        self.dismiss_button.setToolTip(self.tr("Don't ask about this plan again"))
        self.dismiss_button.setAccessibleName(self.tr("Not now: {question}").format(
            question=short(followup["question"])))
        self.dismiss_button.clicked.connect(lambda: self.dismiss_requested.emit(self.followup))
        row.addWidget(self.write_button)
        row.addWidget(self.dismiss_button)
        row.addStretch(1)
        layout.addLayout(row)


class LetterCard(QFrame):
    open_letter = Signal(dict)

    def __init__(self, letter: dict, parent=None):
        super().__init__(parent)
        self.letter = letter
        self.setObjectName("reflectionCard")
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 10, 14, 10)
        first = letter["content"].split("\n", 1)[0].strip("* ")
        text = QLabel(self.tr("A letter has come: {title}").format(title=first))
        text.setWordWrap(True)
        text.setTextFormat(Qt.PlainText)
        row.addWidget(text, 1)
        self.read_button = QPushButton(self.tr("Read"))
        self.read_button.setObjectName("cardAction")
        self.read_button.setAccessibleName(self.tr("Read the letter: {title}").format(title=short(first)))
        self.read_button.clicked.connect(lambda: self.open_letter.emit(self.letter))
        row.addWidget(self.read_button)
