"""The user's entries: write, edit (with history), move to another date, trash / restore / purge,
and the queries the screens and the CLI read them with, search included.

The journal is the user's: every action here needs no LLM and is applied at once, in one short
transaction under the write lock (see jobs/queue.py); the memories that came from an entry follow it
(pipeline/cascade.py): a trashed entry takes the memories only it supported out of search and
the answer context, a restored one brings them back, an edited or moved one has its memories
re-read by the write path (a "reconcile" job that waits for the LLM, marking them meanwhile).

Threading rule: any thread; writes take the write lock the job runner also takes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlmodel import Session, col, func, select

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.db import checkpoint
from memoir_desktop.core.inputs import InvalidInput, NotFound, entry_text, parse_time
from memoir_desktop.core.jobs import queue
from memoir_desktop.core.jobs.queue import JobQueue
from memoir_desktop.core.lexical.highlight import matched_spans_many, snippet
from memoir_desktop.core.pipeline import cascade
from memoir_desktop.core.search.first_stage import rankings
from memoir_desktop.core.search.floor import has_content
from memoir_desktop.core.search.fusion import fuse, rank_score
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.storage.models import Entry, EntryHistory, Job, Summary, now, pk
from memoir_desktop.core.storage.store import Change, stage_pending
from memoir_desktop.core.storage.vectors import IndexBusy


class JournalBusy(IndexBusy):
    """The journal cannot be opened here now: another program holds a plain journal's search files
    (Qdrant's local mode allows one). What Memoir.open raises for it, so a caller (the MCP server)
    names the journal's part, not storage; an IndexBusy still, for callers that catch that."""


log = logging.getLogger(__name__)

REF_LENGTH = 8  # hex digits of an entry's global id shown as its name (4 billion: no two alike in a journal)


def entry_dict(e: Entry, **extra) -> dict:
    d = {"id": e.id, "user_id": e.user_id, "role": e.role, "content": e.content,
         "created_at": e.created_at.isoformat(), "source": e.source,
         "updated_at": e.updated_at.isoformat() if e.updated_at else None,
         "deleted_at": e.deleted_at.isoformat() if e.deleted_at else None,
         "edited": e.updated_at is not None, "tags": list(e.tags or []), "time_zone": e.time_zone,
         "kind": e.kind or "entry", "source_ref": e.source_ref, "private": bool(e.private),
         # The entry's name on every computer (its local id differs from one to the next): the CLI shows
         # and takes it.
         "ref": (e.uuid or "")[:REF_LENGTH], "read": e.read_at is not None}
    d.update(extra)
    return d


@dataclass
class Written:
    entry: Entry
    job_id: int | None = None
    changes: Changes = field(default_factory=Changes)


@dataclass(frozen=True)
class EntryChanged:
    """What a user's action on one entry did: the entry as it is now, what changed (each screen redraws
    by it), the re-read it queued, and the memories it hid, restored or marked to be re-read."""

    entry: dict
    changes: Changes = field(default_factory=Changes)
    job_id: int | None = None
    memories: tuple[str, ...] = ()
    relations: int = 0  # graph relations hidden or restored


@dataclass(frozen=True)
class EntryPurged:
    """A trashed entry deleted forever: what went with it (cascade.PurgePlan.as_dict) and the letters of
    its week or month that retold it."""

    removed: dict
    changes: Changes
    letters_removed: tuple[int, ...] = ()


class Journal:
    def __init__(self, engine, queue: JobQueue, write_lock: threading.Lock, ctx: cascade.CascadeContext,
                 letter_covers: Callable[[str, date], bool] = lambda _ref, _day: False,
                 llm_ready: Callable[[], bool] = lambda: False):
        self.engine = engine
        # Whether an LLM is configured: without one no memorize job indexes an entry soon, so it is
        # indexed at once (found by meaning at once).
        self.llm_ready = llm_ready
        self.queue = queue
        self.write_lock = write_lock
        self.ctx = ctx
        # Whether a letter (by its period key) tells of a day: reflection/letters.py knows periods.
        self.letter_covers = letter_covers

    # -- writing --------------------------------------------------------------------------

    def write(self, text: str, *, user_id: str = "me", timestamp=None, role: str = "user", source: str = "journal",
              private: bool = False) -> int:
        """Commit the entry (first, before anything else) and queue its memorize job; its id. A private
        entry is only journaled: never sent to an LLM, found by local search alone."""
        return pk(self.commit(text, user_id=user_id, timestamp=timestamp, role=role, source=source, private=private,
                              index_now=private or not self.llm_ready()).entry)

    def commit(self, text: str, *, user_id: str, timestamp=None, role: str = "user", source: str = "journal",
              memorize: bool = True, tags: list[str] | None = None, time_zone: str | None = None,
              source_ref: str | None = None, job_payload: dict | None = None, reply_to: int | None = None,
              kind: str = "entry", private: bool = False, job_state: str = "pending",
              index_now: bool = False) -> Written:
        """Commit the entry (first, before anything else) and, unless told not to, its memorize job
        (`job_state` "waiting": a chat turn's job waits for the answer, see companion.py). A private
        entry has no memorize job: it is never sent to an LLM."""
        text = entry_text(text)
        memorize = memorize and not private
        with self.write_lock, Session(self.engine) as s:
            e = Entry(user_id=user_id, role=role, content=text, created_at=parse_time(timestamp), source=source,
                      tags=list(tags or []), time_zone=time_zone, source_ref=source_ref, reply_to=reply_to, kind=kind,
                      private=private)
            s.add(e)
            s.flush()
            job = queue.enqueue(s, "memorize", user_id, {"entry_ids": [pk(e)], **(job_payload or {})},
                               state=job_state) if memorize else None
            s.flush()
            job_id = pk(job) if job else None
            s.commit()
            s.refresh(e)
            s.expunge(e)
        if index_now:  # no job will index it soon (no AI connected, or private): found by meaning at once
            self.index_now(user_id, pk(e))
        return Written(e, job_id, Changes.of(entries=[e.id]))

    def write_exchange(self, messages: list[dict], *, user_id: str, when: datetime, job_payload: dict) -> int:
        """Messages given through the API (mem0's `add`): entries of their roles and one memorize job
        for them all, committed together. Returns the job's id."""
        with self.write_lock, Session(self.engine) as s:
            ids = []
            for m in messages:
                e = Entry(user_id=user_id, role=m["role"], content=m["content"], created_at=when, source="api")
                s.add(e)
                s.flush()
                ids.append(pk(e))
            job = queue.enqueue(s, "memorize", user_id, {"entry_ids": ids, **job_payload})
            s.commit()
            return pk(job)

    def import_entries(self, rows: list[dict], *, user_id: str, batch: str) -> list[int]:
        """Entries read from another journal (content, created_at, tags, time_zone, source_ref), each
        with its memorize job in `batch`; in short transactions, so the user's own actions go between."""
        ids: list[int] = []
        for at in range(0, len(rows), 200):
            with self.write_lock, Session(self.engine) as s:
                for r in rows[at:at + 200]:
                    e = Entry(user_id=user_id, role="user", source="import", **r)
                    s.add(e)
                    s.flush()
                    ids.append(pk(e))
                    queue.enqueue(s, "memorize", user_id, {"entry_ids": [e.id], "batch": batch})
                s.commit()
        self.ctx.episodes.lexical.drop(user_id, "ent")
        return ids

    def close_turn(self, user_id: str, entry_id: int | None, job_id: int | None, reply: str | None,
                   when: datetime | None) -> int | None:
        """A chat turn's end: the reply (if one came) saved after the message, and the turn's job
        released to memorise them together. Returns the reply's entry id."""
        with self.write_lock, Session(self.engine) as s:
            reply_id = None
            if reply:
                e = Entry(user_id=user_id, role="assistant", content=reply, created_at=when or now(),
                          source="chat", reply_to=entry_id)
                s.add(e)
                s.flush()
                reply_id = pk(e)
            queue.release_waiting(s, job_id, reply_id)
            s.commit()
        return reply_id

    def index_now(self, user_id: str, entry_id: int) -> None:
        """Found by meaning at once, before (or without) its memorize job: an entry written with no AI
        connected, a private one, a letter. The job, when it runs, indexes it again (the same point)."""
        self.ctx.reindex_entry(user_id, entry_id, Change())

    def edit(self, entry_id: int, text: str) -> EntryChanged:
        """The user rewrote an entry: its previous text goes to the entry's history and the memories
        it produced are re-read by the write path (they are marked until then)."""
        text = entry_text(text)
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            e = self._live(s, entry_id)
            if e.content == text:
                return EntryChanged(entry_dict(e))
            s.add(EntryHistory(entry_id=entry_id, event="EDIT", old_content=e.content, new_content=text))
            e.content, e.updated_at, e.read_at = text, now(), None  # new words: unread until read again
            s.add(e)
            stage_pending(s, "ent", entry_id, e.user_id)  # its vector is owed until reindex_entry
            letter = e.kind == "letter"  # memoir's own letter: nothing was memorised from it, nothing to re-read
            touched = [] if letter else cascade.mark_source_changed(s, entry_id)
            job = None if letter or e.private else self._reread(s, e, "edited")
            s.flush()
            job_id = job.id if job else None
            s.commit()
            s.refresh(e)
            result = EntryChanged(entry_dict(e), Changes.of(entries=[entry_id], memories=touched), job_id,
                                  memories=tuple(touched))
            user_id = e.user_id
        self.ctx.reindex_entry(user_id, entry_id, change)
        return result

    def move(self, entry_id: int, when) -> EntryChanged:
        """Give an entry another date and time. Relative times in it ("어제") now count from the new
        day, so its memories are re-read like an edit's; the memories only it recorded move with it."""
        when = parse_time(when)
        with self.write_lock, Session(self.engine) as s:
            e = self._live(s, entry_id)
            if e.created_at == when:
                return EntryChanged(entry_dict(e))
            s.add(EntryHistory(entry_id=entry_id, event="MOVE", old_time=e.created_at, new_time=when))
            moved = cascade.move_recorded_times(s, entry_id, e.created_at, when)
            # Not updated_at: a new date is not new words, and "edited" (entry_dict) says the words changed.
            e.created_at, e.read_at = when, None  # its relative times count from the new day: read again
            s.add(e)
            touched = cascade.mark_source_changed(s, entry_id)
            job = None if e.kind == "letter" or e.private else self._reread(s, e, "moved")
            s.flush()
            job_id = job.id if job else None
            s.commit()
            s.refresh(e)
            return EntryChanged(entry_dict(e), Changes.of(entries=[entry_id], memories=[*touched, *moved]), job_id,
                                memories=tuple(touched))

    def set_private(self, entry_id: int, private: bool = True) -> EntryChanged:
        """Make an entry private after writing it, or share it again.

        Private: no LLM reads it from now on (jobs still waiting skip it; pipeline/memorize.py), the
        memories only it supported leave the answer context (invalid, "source private") and its graph
        relations are hidden. What an LLM already read cannot be unsent; the screen says so.
        Shared again: those come back, and an entry never read is queued to be (its memories made)."""
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            e = self._live(s, entry_id)
            if bool(e.private) == private or e.role != "user" or e.kind == "letter":
                return EntryChanged(entry_dict(e))
            e.private = private  # not updated_at: the words did not change, the entry is not "edited"
            s.add(e)
            s.add(EntryHistory(entry_id=entry_id, event="PRIVATE" if private else "SHARED"))
            job = None
            if private:
                out = cascade.hide_entry(self.ctx, s, change, e, reason=cascade.SOURCE_PRIVATE)
                queue.cancel_reads_of(s, e.user_id, pk(e), "the entry was made private")
                # The running summary read it: the summaries since are written again without it.
                if s.exec(select(Summary.id).where(col(Summary.user_id) == e.user_id,
                                                   col(Summary.upto_entry_id) >= entry_id)).first() is not None:
                    cascade.drop_summaries(s, e.user_id, since_entry_id=entry_id)
            else:
                out = cascade.unhide_entry(self.ctx, s, change, e, reason=cascade.SOURCE_PRIVATE)
                if not cascade.memories_of(s, entry_id):
                    job = self._reread(s, e, "shared")
            s.flush()
            job_id = job.id if job else None
            s.commit()
            s.refresh(e)
            result = EntryChanged(entry_dict(e), Changes.of(entries=[entry_id], memories=out.memories,
                                                            graph=bool(out.edges)),
                                  job_id, memories=tuple(out.memories), relations=len(out.edges))
            user_id = e.user_id
        if private:  # the entry itself stays in the local index: the user's own search still finds it
            self.ctx.after_memories_hidden(user_id, change, bool(out.edges))
        else:
            self.ctx.after_unhide(user_id, entry_id, change, bool(out.edges))
        return result

    def trash(self, entry_id: int) -> EntryChanged:
        """Move an entry to the trash: the memories only it supported leave search and the answer
        context (invalid, "source deleted"), its graph relations are hidden; all come back on restore."""
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            e = self._live(s, entry_id)
            e.deleted_at = now()
            s.add(e)
            s.add(EntryHistory(entry_id=entry_id, event="DELETE"))
            replies = [r for r in self._replies(s, entry_id) if r.deleted_at is None]
            for r in replies:  # the companion's answers go with the entry they answer
                r.deleted_at = e.deleted_at
                s.add(r)
            out = cascade.hide_entry(self.ctx, s, change, e)
            s.commit()
            s.refresh(e)
            result = EntryChanged(entry_dict(e), Changes.of(entries=[entry_id, *(r.id for r in replies)],
                                                            memories=out.memories, graph=bool(out.edges)),
                                  memories=tuple(out.memories), relations=len(out.edges))
            user_id = e.user_id
        self.ctx.after_hide(user_id, entry_id, change, bool(out.edges))
        if replies:
            self.ctx.episodes.remove(user_id, [pk(r) for r in replies])
        return result

    def restore(self, entry_id: int) -> EntryChanged:
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            e = s.get(Entry, entry_id)
            if e is None:
                raise NotFound(entry_id, "entry")
            if e.deleted_at is None:
                return EntryChanged(entry_dict(e))
            trashed_at = e.deleted_at
            e.deleted_at = None
            s.add(e)
            s.add(EntryHistory(entry_id=entry_id, event="RESTORE"))
            replies = [r for r in self._replies(s, entry_id) if r.deleted_at == trashed_at]  # trashed with it
            for r in replies:
                r.deleted_at = None
                s.add(r)
            out = cascade.unhide_entry(self.ctx, s, change, e)
            s.commit()
            s.refresh(e)
            result = EntryChanged(entry_dict(e), Changes.of(entries=[entry_id, *(r.id for r in replies)],
                                                            memories=out.memories, graph=bool(out.edges)),
                                  memories=tuple(out.memories), relations=len(out.edges))
            user_id = e.user_id
        self.ctx.after_unhide(user_id, entry_id, change, bool(out.edges))
        for r in replies:
            self.ctx.reindex_entry(user_id, pk(r), Change())
        return result

    def purge_preview(self, entry_id: int) -> dict:
        """What deleting a trashed entry forever removes (for the confirmation)."""
        with Session(self.engine) as s:
            e = self._trashed(s, entry_id)
            return cascade.purge_plan(s, e).as_dict()

    def purge(self, entry_id: int) -> EntryPurged:
        """Delete a trashed entry forever, with everything derived from it alone (see cascade.purge)."""
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            e = self._trashed(s, entry_id)
            user_id, kind, day = e.user_id, e.kind, e.created_at.date()
            for r in self._replies(s, entry_id):
                if r.deleted_at is not None:  # its answers go forever too (they have no memories)
                    cascade.purge(self.ctx, s, change, r, cascade.purge_plan(s, r))
            plan = cascade.purge_plan(s, e)
            cascade.purge(self.ctx, s, change, e, plan)
            s.commit()
            checkpoint(self.engine)
        self.ctx.after_purge(user_id, entry_id, change)
        # A letter of its week or month may retell it: such letters go too (with their history); the next
        # make_letters writes them again from what is left.
        gone = self._drop_letters_of(user_id, day) if kind != "letter" else []
        return EntryPurged(plan.as_dict(), Changes.of(entries=[entry_id, *gone], memories=plan.memory_ids,
                                                      graph=bool(plan.edges), summary=True), tuple(gone))

    def _drop_letters_of(self, user_id: str, day: date) -> list[int]:
        with self.write_lock, Session(self.engine) as s:
            rows = [e for e in s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.kind) == "letter"))
                    if e.source_ref and self.letter_covers(e.source_ref, day)]
            ids = [pk(e) for e in rows]
            for e in rows:
                for h in s.exec(select(EntryHistory).where(col(EntryHistory.entry_id) == e.id)):
                    s.delete(h)
                s.flush()  # no ORM relationship orders the deletes: the history rows go first
                s.delete(e)
            s.commit()
        if ids:
            checkpoint(self.engine)  # out of the write-ahead log too (see db.checkpoint)
            self.ctx.episodes.remove(user_id, ids)
        return ids

    # -- reading --------------------------------------------------------------------------

    def entries(self, *, user_id: str = "me", day: date | None = None, limit: int | None = None,
                letters: bool = False) -> list[dict]:
        """`letters`: memoir's letters too (an export wants them; a day's conversation does not)."""
        with Session(self.engine) as s:
            q = select(Entry).where(col(Entry.user_id) == user_id, col(Entry.deleted_at).is_(None))
            if not letters:
                q = q.where(col(Entry.kind) != "letter")
            if day:
                start = datetime(day.year, day.month, day.day)
                q = q.where(col(Entry.created_at) >= start, col(Entry.created_at) < start + timedelta(days=1))
            rows = list(s.exec(q.order_by(col(Entry.created_at), col(Entry.id))))
        if limit:
            rows = rows[-limit:]
        return [entry_dict(e) for e in rows]

    def letter_of(self, user_id: str, period_key: str) -> int | None:
        """The letter of a week or month (by its period key), if one is there (trash included)."""
        with Session(self.engine) as s:
            return s.exec(select(Entry.id).where(col(Entry.user_id) == user_id, col(Entry.kind) == "letter",
                                                 col(Entry.source_ref) == period_key)).first()

    def entry(self, entry_id: int) -> dict:
        with Session(self.engine) as s:
            e = s.get(Entry, entry_id)
        if e is None:
            raise NotFound(entry_id, "entry")
        return entry_dict(e)

    def days(self, *, user_id: str = "me") -> list[date]:
        with Session(self.engine) as s:
            rows = s.exec(select(Entry.created_at).where(col(Entry.user_id) == user_id, col(Entry.kind) != "letter",
                                                         col(Entry.deleted_at).is_(None))).all()
        return sorted({r.date() for r in rows}, reverse=True)

    def in_trash(self, *, user_id: str = "me") -> list[dict]:
        with Session(self.engine) as s:
            rows = s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.deleted_at).is_not(None))
                          .order_by(col(Entry.deleted_at).desc())).all()
        return [entry_dict(e) for e in rows]

    def id_of(self, ref: str | int) -> int:
        """An entry's local id from its id or its ref (the first hex digits of its global id, as the CLI
        shows it: the same on every computer). NotFound when none or more than one entry has it."""
        text = str(ref).strip().lower()
        with Session(self.engine) as s:
            if text.isdigit() and s.get(Entry, int(text)) is not None and len(text) < REF_LENGTH:
                return int(text)
            found = list(s.exec(select(Entry.id).where(col(Entry.uuid).startswith(text)).limit(2))) \
                if len(text) >= 4 else []
        if len(found) != 1 or found[0] is None:
            raise NotFound(ref, "entry")
        return found[0]

    def history(self, entry_id: int) -> list[dict]:
        with Session(self.engine) as s:
            if s.get(Entry, entry_id) is None:
                raise NotFound(entry_id, "entry")
            # By when each change was made: rows another computer made arrive by sync in any order.
            rows = s.exec(select(EntryHistory).where(col(EntryHistory.entry_id) == entry_id)
                          .order_by(col(EntryHistory.created_at), col(EntryHistory.id))).all()
        return [{"id": h.id, "event": h.event, "old_content": h.old_content, "new_content": h.new_content,
                 "old_time": h.old_time.isoformat() if h.old_time else None,
                 "new_time": h.new_time.isoformat() if h.new_time else None,
                 "created_at": h.created_at.isoformat()} for h in rows]

    def count(self, *, user_id: str) -> int:
        with Session(self.engine) as s:
            return s.exec(select(func.count()).select_from(Entry).where(
                col(Entry.user_id) == user_id, col(Entry.deleted_at).is_(None))).one()

    def search(self, user_id: str, q: Query, *, limit: int = 20) -> list[dict]:
        """The user's own entries (not the companion's replies, not the trash) for a query: words
        (Korean morphemes, English stems) always, meaning too when the embedding model is there;
        each with the words that matched, marked in a snippet. Nothing for an unrelated query. A query
        naming one day ("3월 14일", "2026-03-14", "on 14 March") lists that day's entries first."""
        if not has_content(q.terms, q.span if q.one_day else None, None):
            return []
        depth = max(limit * 3, 30)
        episodes = self.ctx.episodes
        ranked = rankings(q, episodes.bm25(user_id), lambda vec, depth: episodes.dense(user_id, vec, depth),
                          self.ctx.store.embedder, depth=depth, listing=True, what="entry search", words_first=True)
        ranked = {k: [(int(i), sc) for i, sc in v] for k, v in ranked.items()}
        fused = fuse(ranked)
        if q.one_day and q.span_bounds:
            day = self._written_on(user_id, *q.span_bounds, limit)
            ids = {i for i, _, _ in day}
            fused = day + [f for f in fused if f[0] not in ids]
        found: list[tuple[Entry, float, dict]] = []
        for at in range(0, len(fused), limit * 2):
            part = fused[at:at + limit * 2]
            with Session(self.engine) as s:
                rows = {e.id: e for e in s.exec(select(Entry).where(col(Entry.id).in_([i for i, _, _ in part])))}
            found += [(rows[i], score, signals) for i, score, signals in part if i in rows
                      and rows[i].user_id == user_id and rows[i].deleted_at is None
                      and (rows[i].role == "user" or rows[i].kind == "letter")]
            if len(found) >= limit:
                break
        found = found[:limit]
        out = []
        for (e, score, signals), spans in zip(found, matched_spans_many([e.content for e, _, _ in found], q.terms),
                                              strict=True):
            text, marks = snippet(e.content, spans)
            out.append(entry_dict(e, score=round(score, 6), explain=signals, snippet=text, highlights=marks))
        return out

    # -- internals ------------------------------------------------------------------------

    def _written_on(self, user_id: str, lo: datetime, hi: datetime, limit: int) -> list[tuple[int, float, dict]]:
        """The entries dated in [lo, hi], in the order written, as fused hits found by their day."""
        with Session(self.engine) as s:
            ids = s.exec(select(Entry.id).where(
                col(Entry.user_id) == user_id, col(Entry.deleted_at).is_(None),
                col(Entry.created_at).between(lo, hi)).order_by(col(Entry.created_at)).limit(limit * 2)).all()
        span = {"span": [lo.date().isoformat(), hi.date().isoformat()]}
        return [(int(i), rank_score(at), {"time": span}) for at, i in enumerate(ids) if i is not None]

    def _reread(self, s: Session, e: Entry, why: str) -> Job:
        """The job that will read the entry's current text: one already waiting for it if there is
        one (its memorize job reads the entry when it runs, so a not-yet-read entry needs nothing
        more), else a new re-read. Ten edits while offline leave one job, not ten."""
        eid = pk(e)
        return queue.pending_read_of(s, e.user_id, eid) or queue.enqueue(s, "reconcile", e.user_id,
                                                                        {"entry_id": eid, "why": why})

    @staticmethod
    def _replies(s: Session, entry_id: int) -> list[Entry]:
        return list(s.exec(select(Entry).where(col(Entry.reply_to) == entry_id)))

    @staticmethod
    def _live(s: Session, entry_id: int) -> Entry:
        e = s.get(Entry, entry_id)
        if e is None:
            raise NotFound(entry_id, "entry")
        if e.deleted_at is not None:
            raise InvalidInput("this entry is in the trash: restore it first")
        return e

    @staticmethod
    def _trashed(s: Session, entry_id: int) -> Entry:
        e = s.get(Entry, entry_id)
        if e is None:
            raise NotFound(entry_id, "entry")
        if e.deleted_at is None:
            raise InvalidInput("only an entry in the trash can be deleted forever: move it to the trash first")
        return e
