"""`Reflection`: the reflection package's operations as the app calls them — On This Day, follow-ups on
plans and their state, the weekly and monthly letters, the profile with its switched-off kinds, and
the Stats page's reads of moods and memory changes.

The LLM only phrases (a follow-up's question, a letter); the offline text stands when it fails.
Threading rule: `followups` (it may phrase and keep a question), the follow-up states and the
letters write, so they run on the writer; the rest are reads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlmodel import Session, col, select

from memoir_desktop.core import config
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.inputs import InvalidInput, NotFound
from memoir_desktop.core.jobs.queue import JobQueue
from memoir_desktop.core.journal.entries import EntryChanged, Journal
from memoir_desktop.core.llm import Gate, LLMBadReply, LLMError
from memoir_desktop.core.pipeline import categories
from memoir_desktop.core.reflection import followups, letters
from memoir_desktop.core.reflection.on_this_day import on_this_day
from memoir_desktop.core.storage.models import Entry, History, Memory, pk
from memoir_desktop.core.storage.store import MemoryStore, memory_dict

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FollowupChanged:
    """A plan's question dismissed, or answered by an entry."""

    memory_id: str
    state: str
    entry_id: int | None
    changes: Changes


@dataclass(frozen=True)
class KindRemembered:
    """A kind of thing switched on or off for the write path (a setting)."""

    category: str
    remember: bool
    changes: Changes = field(default_factory=lambda: Changes(settings=True))


class Reflection:
    def __init__(self, engine, home, store: MemoryStore, journal: Journal, jobs_queue: JobQueue,
                 write_lock: threading.Lock, *, llm: Callable[[], Gate], settings: Callable):
        self.engine, self.home, self.store, self.journal = engine, home, store, journal
        self.jobs_queue, self.write_lock = jobs_queue, write_lock
        self._llm, self._settings = llm, settings

    def on_this_day(self, day: date, *, user_id: str = "me") -> list[dict]:
        """Entries and memories of the same date one month and one, two, … years before `day`."""
        with Session(self.engine) as s:
            return on_this_day(s, user_id, day)

    # -- follow-ups on plans ------------------------------------------------------------

    def followups(self, *, user_id: str = "me", now: datetime | None = None, phrase: bool = True) -> list[dict]:
        """Plans whose date has passed, still open, as gentle questions. With `phrase` and an LLM, a
        question not phrased yet is asked of it once (kept); the template stands when it fails. A
        plan a later entry already speaks of is marked answered (by that entry) and not shown."""
        return self.keep_followups(self.due_followups(user_id=user_id, now=now, phrase=phrase))

    def due_followups(self, *, user_id: str = "me", now: datetime | None = None, phrase: bool = True) -> dict:
        """The reading half of `followups` (reads and LLM calls, no write): what is due, what a later
        entry answered, and the questions phrased now; `keep_followups` writes them."""
        at = now or datetime.now()
        llm = self._llm()
        with Session(self.engine) as s:
            found = followups.due(s, user_id, at)
            answered = {m.id: eid for m, eid in ((m, followups.answered_by(s, user_id, m, at)) for m, _ in found)
                        if eid is not None}
        phrased = {}
        for m, row in found:
            if m.id not in answered and phrase and llm.configured and not (row and row.question):
                try:
                    phrased[m.id] = followups.phrase(llm, m, at)
                except LLMError as exc:
                    log.info("follow-up left in its template: %s", exc.__class__.__name__)
        return {"user_id": user_id, "found": found, "answered": answered,
                "phrased": {k: v for k, v in phrased.items() if v}}

    def keep_followups(self, due: dict) -> list[dict]:
        """The writing half of `followups`: answered plans marked, phrased questions kept; the questions."""
        user_id, answered, phrased = due["user_id"], due["answered"], due["phrased"]
        rows = {}
        if answered or phrased:
            with self.write_lock, Session(self.engine) as s:
                for mid, eid in answered.items():
                    followups.set_state(s, user_id, mid, followups.ANSWERED, entry_id=eid)
                for mid, question in phrased.items():
                    rows[mid] = followups.set_state(s, user_id, mid, followups.OPEN, question=question)
                s.commit()
                for row in rows.values():
                    s.refresh(row)
                    s.expunge(row)
        return [followups.followup_dict(m, rows.get(m.id, row)) for m, row in due["found"] if m.id not in answered]

    def dismiss_followup(self, memory_id: str, *, user_id: str = "me") -> FollowupChanged:
        return self.set_followup(memory_id, user_id, followups.DISMISSED)

    def answer_followup(self, memory_id: str, entry_id: int | None = None, *, user_id: str = "me") -> FollowupChanged:
        """The user wrote about the plan (entry_id: that entry)."""
        return self.set_followup(memory_id, user_id, followups.ANSWERED, entry_id)

    def set_followup(self, memory_id: str, user_id: str, state: str, entry_id: int | None = None) -> FollowupChanged:
        """The user dismissed a plan's question, or wrote about the plan (entry_id: that entry)."""
        with self.write_lock, Session(self.engine) as s:
            if s.get(Memory, memory_id) is None:
                raise NotFound(memory_id)
            row = followups.set_state(s, user_id, memory_id, state, entry_id=entry_id)
            s.commit()
            return FollowupChanged(memory_id, row.state, row.entry_id, Changes.of(memories=[memory_id]))

    # -- letters ------------------------------------------------------------------------

    def make_letters(self, *, user_id: str = "me", now: datetime | None = None) -> list[dict]:
        """The letters of the weeks and months that ended with entries and have none yet (called at
        start). The LLM writes them when connected; else, or when it fails, the digest. Returns them."""
        return self.write_letters(self.compose_letters(user_id=user_id, now=now))

    def compose_letters(self, *, user_id: str = "me", now: datetime | None = None) -> dict:
        """The reading half of `make_letters` (reads and LLM calls, no write): each due letter's text."""
        at = now or datetime.now()
        with Session(self.engine) as s:
            periods = letters.due_periods(s, user_id, at)
        texts = []
        for period in periods:
            with Session(self.engine) as s:
                material = letters.gather(s, user_id, period)
            texts.append((period, self._letter_text(material)))
        return {"user_id": user_id, "letters": texts}

    def write_letters(self, composed: dict) -> list[dict]:
        """The writing half of `make_letters`: each letter on its period's last day, after its entries."""
        out = []
        for period, text in composed["letters"]:
            if self.journal.letter_of(composed["user_id"], period.key) is not None:
                continue  # written meanwhile (another window, a second start)
            written = self.journal.commit(text, user_id=composed["user_id"], role="assistant", source="reflection",
                                         memorize=False, timestamp=period.ends - timedelta(seconds=1),
                                         source_ref=period.key, kind="letter", index_now=True)
            out.append(self.journal.entry(pk(written.entry)))
        return out

    def regenerate_letter(self, entry_id: int) -> EntryChanged:
        """Write a letter again (for instance once an LLM is connected); the old text stays in its history."""
        return self.journal.edit(entry_id, self.recompose_letter(entry_id))

    def recompose_letter(self, entry_id: int) -> str:
        """The reading half of `regenerate_letter`: the letter's new text (no write)."""
        e = self.journal.entry(entry_id)
        if e["kind"] != "letter":
            raise InvalidInput("only a letter can be written again")
        with Session(self.engine) as s:
            material = letters.gather(s, e["user_id"], letters.Period.from_key(e["source_ref"]))
        # Asked for by the user: an AI that fails keeps the letter as it is (raised, for the dialog to
        # say so) instead of writing the digest over a letter the AI wrote.
        llm = self._llm()
        if not llm.configured:
            return letters.digest(material)
        try:
            return letters.compose(llm, material)
        except ValueError as exc:  # an empty letter: nothing to write over the one there is
            raise LLMBadReply(str(exc)) from exc

    def letters(self, *, user_id: str = "me") -> list[dict]:
        """The letters (not the trash), newest first."""
        with Session(self.engine) as s:
            rows = s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.kind) == "letter",
                                              col(Entry.deleted_at).is_(None))
                          .order_by(col(Entry.created_at).desc())).all()
        return [self.journal.entry(pk(e)) for e in rows]

    def _letter_text(self, material) -> str:
        llm = self._llm()
        if llm.configured:
            try:
                return letters.compose(llm, material)
            except (LLMError, ValueError) as exc:
                log.info("letter written as a digest: %s", exc.__class__.__name__)
        return letters.digest(material)

    # -- the profile ----------------------------------------------------------------------

    def profile(self, *, user_id: str = "me") -> list[dict]:
        """What memoir knows: the active memories by category, with whether each kind is remembered."""
        off = categories.blocked(self._settings())
        groups: dict[str, list[dict]] = {c: [] for c in categories.CATEGORIES}
        for m in self.store.all(user_id):
            groups[categories.category_of(m)].append(memory_dict(m))
        return [{"category": c, "remember": c not in off, "memories": groups[c]} for c in categories.CATEGORIES]

    def set_remembered(self, category: str, remember: bool) -> KindRemembered:
        """Switch a kind of thing on or off for the write path (saved in the settings)."""
        if category not in categories.CATEGORIES:
            raise InvalidInput(f"unknown category {category!r}")
        on_disk = config.load_settings(self.home, apply_env=False)
        off = [c for c in on_disk.not_remembered if c != category] + ([] if remember else [category])
        on_disk.not_remembered = off
        config.save_settings(self.home, on_disk)
        self._settings().not_remembered = list(off)
        return KindRemembered(category, remember)

    # -- what the Stats page reads ------------------------------------------------------

    def moods(self, *, user_id: str = "me") -> list[dict]:
        """The moods noted when memories were made ({day, mood})."""
        out = []
        for j in self.jobs_queue.list("done", user_id):
            mood = (j.result or {}).get("mood")
            ids = (j.payload or {}).get("entry_ids") or []
            if mood and ids:
                try:
                    e = self.journal.entry(ids[0])
                except NotFound:
                    continue
                if not e["deleted_at"]:
                    out.append({"day": e["created_at"][:10], "mood": mood})
        return out

    def history_rows(self, *, user_id: str = "me") -> list[dict]:
        """Every memory change of the user ({event, actor, created_at})."""
        with Session(self.engine) as s:
            rows = s.exec(select(History.event, History.actor, History.created_at)
                          .join(Memory, col(Memory.id) == col(History.memory_id))
                          .where(col(Memory.user_id) == user_id).order_by(col(History.id))).all()
        return [{"event": e, "actor": a, "created_at": t.isoformat()} for e, a, t in rows]
