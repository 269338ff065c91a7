"""The compact "🧠 memory operations" log drawn under the exchange that caused them."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from memoir_desktop.ui.shared import llm_words
from memoir_desktop.ui.shared.a11y import plain_text
from memoir_desktop.ui.shared.glyphs import OP_SYMBOLS, brain, hold

_OBJECT_NAMES = {"ADD": "opAdd", "UPDATE": "opUpdate", "DELETE": "opDelete", "NOOP": "opNoop"}
_GRAPH_EVENTS = {"EDGE_ADD": ("＋", "opAdd"), "EDGE_INVALIDATE": ("✕", "opDelete")}


class MemoryOpsLog(QFrame):
    retry_requested = Signal(int)  # job id

    def __init__(self, job_id: int | None, parent=None):
        super().__init__(parent)
        self.job_id = job_id
        self.state = "pending"
        self.events: list[str] = []
        self.setObjectName("opsLog")
        # One stop for the keyboard and a screen reader: its title as its name, its lines as its description.
        self.setFocusPolicy(Qt.TabFocus)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(10, 6, 10, 6)
        self._layout.setSpacing(2)
        # No AI connected: the page's banner says once that entries wait for one, so each entry's
        # "waiting" strip stays out of sight until its memories are made (the chat view sets this).
        self.quiet_while_waiting = False
        self.waiting = False
        self._quieted = False
        # The server's address and time limit, named in the sentences that say why it waits (chat_view.py).
        self.address: str = ""
        self.seconds: float | None = None
        self.reason: dict | None = None  # why it waits, as the core last said (core/jobs/service.py reason)
        self.title = QLabel()
        self.title.setObjectName("opsTitle")
        self._layout.addWidget(self.title)
        self.show_pending(waiting_for_llm=False)

    def _clear(self) -> None:
        while self._layout.count() > 1:
            item = self._layout.takeAt(1)
            if item.widget():
                item.widget().deleteLater()
            elif item.layout():
                while item.layout().count():
                    child = item.layout().takeAt(0)
                    if child.widget():
                        child.widget().deleteLater()
        self.events = []
        self._nothing: QLabel | None = None  # "Nothing new to remember", until relations follow
        self._finding: QLabel | None = None  # the graph's reading, while it waits or runs

    def _title(self, suffix: str = "") -> None:
        text = f"{brain()} " + self.tr("What memoir remembered")
        self.title.setText(f"{text} — {suffix}" if suffix else text)
        self._describe()

    def _describe(self) -> None:
        self.setAccessibleName(self.title.text().replace(brain(), "").strip())
        lines = [plain_text(label.text()) for label in self.findChildren(QLabel)
                 if label is not self.title and not label.isHidden()]
        self.setAccessibleDescription("\n".join(line for line in lines if line))

    def childEvent(self, event) -> None:
        super().childEvent(event)
        if event.added() and hasattr(self, "title"):
            QTimer.singleShot(0, self, self._describe)  # once the new line has its text

    def show_pending(self, waiting_for_llm: bool, reason: dict | None = None) -> None:
        """Waiting, and why (core/jobs/service.py `reason`): the server down since when, too slow, in line…"""
        self._clear()
        self.state = "pending"
        self.waiting = waiting_for_llm
        # The page says "waiting" again when the server stays away; the reason last read still holds.
        reason = reason or (self.reason if waiting_for_llm else None)
        self.reason = reason
        if waiting_for_llm and reason and reason.get("kind") == "timeout":
            self._title(self.tr("waiting: the AI answers too slowly"))  # it is there; it is not "connecting"
        else:
            self._title(self.tr("waiting for the AI to connect") if waiting_for_llm else self.tr("organizing…"))
        if reason and reason.get("kind") not in ("not_configured", "queued"):
            # Without an AI the page's banner says it once; in line is what "organizing…" says.
            self._add_label(llm_words.job_reason(reason, address=self.address, seconds=self.seconds), "opsWhy")
        self.set_quiet(self.quiet_while_waiting)

    def set_quiet(self, quiet: bool) -> None:
        self.quiet_while_waiting = quiet
        if quiet and self.state == "pending" and self.waiting:
            self._quieted = True
            self.hide()
        else:
            self._reveal()

    def _reveal(self) -> None:
        # Only what set_quiet hid is shown again (a widget shown without a parent becomes a window).
        if self._quieted:
            self._quieted = False
            self.show()

    def show_rereading(self) -> None:
        """The entry was edited or moved: its memories are being read again (a reconcile job)."""
        self._clear()
        self.state = "pending"
        self.waiting = False
        self._title(self.tr("re-reading your memories…"))
        self.set_quiet(self.quiet_while_waiting)

    def show_result(self, job: dict) -> None:
        """`job` is one `process_jobs` result (or a stored job): {id, state, result | error}."""
        state = job.get("state")
        if state != "done":
            why = llm_words.reason_of(job)
            if state == "failed":
                self._show_failed(job.get("error") or "", why)
            else:
                self.show_pending(waiting_for_llm=True, reason=why)
            return
        self._clear()
        self.state = "done"
        self.waiting = False
        self._reveal()
        self._title()
        result = job.get("result") or {}
        ops = result.get("results") or []
        for op in ops:
            self._add_op(op)
        for held in result.get("pending_confirmation") or []:
            label = QLabel(hold() + " " + self.tr("awaiting your confirmation: {event} {old} → {new}").format(
                event=self._event_name(held.get("event", "")), old=held.get("memory", ""),
                new=held.get("proposed") or "—"))
            label.setWordWrap(True)
            label.setObjectName("opUpdate")
            self._layout.addWidget(label)
        edges = self._add_relations(result.get("relations") or [])
        if not ops and not edges and not result.get("pending_confirmation"):
            self._nothing = self._add_label(self.tr("Nothing new to remember."), "opNoop")
        if result.get("graph_pending"):  # the people and places follow (core/pipeline/graph_job.py)
            self._finding = self._add_label(self.tr("Looking for the people and places in it…"), "opNoop")
        if result.get("left_out"):  # the gate kept private entries out of the context the AI read
            self._add_label(self.tr("%n private entry(ies) nearby were not sent to the AI.", None,
                                    int(result["left_out"])), "opNoop")

    def add_relations(self, relations: list[dict]) -> None:
        """The graph's reading of the entry, done after its memories (core/pipeline/graph_job.py)."""
        if self.state != "done":
            return  # the memories' result draws the log afresh; the relations come with a reload
        if self._finding is not None:
            self._finding.hide()
            self._finding = None
        if self._add_relations(relations) and self._nothing is not None:
            self._nothing.hide()  # there was something new after all
            self._nothing = None
        self._describe()  # what a screen reader hears loses the lines just hidden

    def _add_relations(self, relations: list[dict]) -> list[dict]:
        # Only relations are shown; node bookkeeping would be noise here.
        edges = [r for r in relations if r.get("event") in _GRAPH_EVENTS]
        for rel in edges:
            symbol, name = _GRAPH_EVENTS[rel["event"]]
            self.events.append(rel["event"])
            self._add_label(f"<b>{symbol}{html.escape(self.tr('relation'))}</b>&nbsp; "
                            f"{html.escape(rel.get('text') or '')}", name, rich=True)
        return edges

    def _add_op(self, op: dict) -> None:
        event = op.get("event", "NOOP")
        self.events.append(event)
        symbol = OP_SYMBOLS.get(event, "·")
        text = html.escape(op.get("memory") or "")
        if event == "UPDATE" and op.get("previous_memory"):
            text = f"<s>{html.escape(op['previous_memory'])}</s> → {text}"
        self._add_label(f"<b>{symbol}{html.escape(self._event_name(event))}</b>&nbsp; {text}",
                        _OBJECT_NAMES.get(event, "opNoop"), rich=True)

    def _event_name(self, event: str) -> str:
        """The diarist's word for what happened to a memory (the engine's ADD / UPDATE / DELETE / NOOP)."""
        return {"ADD": self.tr("Added to memory"), "UPDATE": self.tr("Corrected"), "DELETE": self.tr("Forgot"),
                "NOOP": self.tr("Already known")}.get(event, event)

    def _add_label(self, text: str, name: str, rich: bool = False) -> QLabel:
        label = QLabel(text)
        label.setTextFormat(Qt.RichText if rich else Qt.PlainText)
        label.setWordWrap(True)
        label.setObjectName(name)
        label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self._layout.addWidget(label)
        return label

    def _show_failed(self, error: str, why: dict | None = None) -> None:
        self._clear()
        self.state = "failed"
        self.waiting = False
        self._reveal()
        self._title(self.tr("could not be organized"))
        row = QHBoxLayout()
        reason = QLabel(llm_words.job_reason(why, address=self.address, seconds=self.seconds) if why and
                        why.get("kind") not in ("bad_reply", "error")
                        else self.tr("The AI's reply could not be used. Your entry is safe."))
        reason.setWordWrap(True)
        reason.setObjectName("opDelete")
        reason.setToolTip(error)
        row.addWidget(reason, 1)
        retry = QPushButton(self.tr("Try again"))
        retry.setAccessibleName(self.tr("Try organizing this entry again"))
        retry.clicked.connect(lambda: self.retry_requested.emit(self.job_id))
        row.addWidget(retry)
        self._layout.addLayout(row)
