"""Memories as the user and other programs act on them (mem0's API names): add, get, search, edit,
forget and restore; the proposals the write path held for the user's OK; the memories other apps
suggested; forgetting a whole kind at once and undoing it.

Each user action is its own short transaction under the write lock (never queued behind an LLM job)
and returns what it changed. `add(..., infer=True)` is the exception: it runs the write path now,
as one job (the entry and its job committed first, like any journal entry).

Threading rule: writes on the writer (they take the write lock); reads anywhere.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from memoir_desktop.core import temporal
from memoir_desktop.core.apps import app_suggestions
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.inputs import InvalidInput, NotFound, clean_text, parse_time
from memoir_desktop.core.jobs.queue import JobQueue
from memoir_desktop.core.journal.entries import Journal
from memoir_desktop.core.llm import Gate, LLMBadReply, LLMUnavailable, prompts
from memoir_desktop.core.pipeline import categories, consolidate, graph_job, tidy
from memoir_desktop.core.pipeline.extraction import fact_span, shape_fact
from memoir_desktop.core.pipeline.summary import summary_text
from memoir_desktop.core.storage.models import Entry, Memory, Proposal, now
from memoir_desktop.core.storage.store import Change, MemoryStore, memory_dict


@dataclass(frozen=True)
class Added:
    """Memories added: mem0's results ({id, memory, event}) and what changed."""

    results: list[dict]
    changes: Changes = field(default_factory=Changes)
    relations: list = field(default_factory=list)
    pending_confirmation: list = field(default_factory=list)

    def as_mem0(self) -> dict:
        """mem0's own shape of `add`'s answer."""
        out: dict = {"results": self.results}
        if self.relations or self.pending_confirmation:
            out.update(relations=self.relations, pending_confirmation=self.pending_confirmation)
        return out


@dataclass(frozen=True)
class MemoryChanged:
    """A user's action on one memory: the memory as it is now, and what changed."""

    memory: dict
    changes: Changes


@dataclass(frozen=True)
class MemoriesChanged:
    """A user's action on several memories at once (a kind forgotten, or restored)."""

    ids: list[str]
    changes: Changes


@dataclass(frozen=True)
class SuggestionDecided:
    """Another app's suggested memory, accepted (the memory it became) or declined."""

    suggestion_id: int
    accepted: bool
    memory_id: str | None
    changes: Changes


def as_messages(messages) -> list[dict]:
    if isinstance(messages, str):
        return [{"role": "user", "content": clean_text(messages)}]
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages must be a string or a non-empty list of {role, content}")
    out = []
    for m in messages:
        if isinstance(m, str):
            m = {"role": "user", "content": m}
        if not isinstance(m, dict) or "content" not in m:
            raise InvalidInput("each message needs a 'content'")
        out.append({"role": m.get("role", "user"), "content": clean_text(m["content"])})
    return out


class Memories:
    def __init__(self, engine, store: MemoryStore, journal: Journal, write_lock: threading.Lock, retriever,
                 metrics, queue: JobQueue, *, llm: Callable[[], Gate], run_job: Callable[[int], dict],
                 settings: Callable):
        self.engine, self.store, self.journal, self.write_lock = engine, store, journal, write_lock
        self.retriever, self.metrics, self.queue = retriever, metrics, queue
        self._llm, self._run_job, self._settings = llm, run_job, settings

    # -- adding -------------------------------------------------------------------------

    def add(self, messages, *, user_id: str = "me", metadata: dict | None = None, infer: bool = True,
            timestamp=None, memory_type: str | None = None, entry_id: int | None = None) -> Added:
        """`entry_id` (with infer=False): the entry the user's own memory comes from ("Remember
        this"), so it follows that entry to the trash or into privacy like the AI's memories."""
        msgs = as_messages(messages)
        when = parse_time(timestamp)
        if not infer:
            return self._add_verbatim(msgs, user_id, metadata, when, entry_id)
        if memory_type == "procedural":
            return self._add_procedural(msgs, user_id, metadata, when)
        job_id = self.journal.write_exchange(msgs, user_id=user_id, when=when, job_payload={"metadata": metadata or {}})
        done = self._run_job(job_id)
        if done["state"] != "done":
            raise (LLMUnavailable if done["state"] == "pending" else LLMBadReply)(done.get("error") or "failed")
        result = done["result"]
        changes, relations = Changes.from_dict(result.get("changes")), []
        follow = graph_job.follower(self.engine, job_id)
        if follow is not None:  # mem0's add answers with the relations too; an outage leaves them queued
            read = self._run_job(follow)
            if read["state"] == "done":
                relations = read["result"].get("relations", [])
                changes = changes | Changes.from_dict(read["result"].get("changes"))
        return Added(result["results"], changes, relations, result.get("pending_confirmation", []))

    def _add_verbatim(self, msgs, user_id, metadata, when, entry_id: int | None = None) -> Added:
        change = Change()
        results = []
        with self.write_lock, Session(self.engine) as s:
            if entry_id is not None:
                e = s.get(Entry, entry_id)
                if e is None or e.user_id != user_id:
                    raise NotFound(entry_id)
            for m in msgs:
                row = self.stage_verbatim(s, change, user_id, m["content"], when, entry_id, metadata)
                results.append({"id": row.id, "memory": row.text, "event": "ADD"})
            s.commit()
        self.store.apply_index(user_id, change)
        return Added(results, Changes.of(memories=[r["id"] for r in results]))

    def stage_verbatim(self, s: Session, change: Change, user_id: str, text: str, when: datetime,
                       entry_id: int | None, metadata: dict | None) -> Memory:
        # Verbatim: the text is kept as given; only its time fields are read from it.
        about, rule = fact_span(text, when), temporal.recurring.rule_of(text)
        return self.store.stage_add(s, change, user_id=user_id, text=text, actor="user", created_at=when,
                                    entry_id=entry_id, about=about, recurrence=rule, meta=metadata,
                                    category=categories.categorize(text, about=about, recorded=when,
                                                                   recurrence=rule))

    def _add_procedural(self, msgs, user_id, metadata, when) -> Added:
        text = self._llm().complete("extraction", [{"role": "system", "content": prompts.PROCEDURAL_SYSTEM},
                                                   {"role": "user", "content": prompts.format_messages(msgs)}])
        if not text.strip():
            raise LLMBadReply("procedural summary came back empty")
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            row = self.store.stage_add(s, change, user_id=user_id, text=text.strip(), actor="llm",
                                       created_at=when, memory_type="procedural", meta=metadata)
            s.commit()
            result = {"id": row.id, "memory": row.text, "event": "ADD"}
        self.store.apply_index(user_id, change)
        return Added([result], Changes.of(memories=[result["id"]]))

    # -- reading ------------------------------------------------------------------------

    def search(self, query: str, *, user_id: str = "me", limit: int = 10, filters: dict | None = None,
               now: datetime | None = None) -> dict:
        start = time.perf_counter()
        results = self.retriever.search(user_id, query, limit=limit, filters=filters, now=now)
        self.metrics.record("search", (time.perf_counter() - start) * 1000)
        return {"results": results}

    def get(self, memory_id: str) -> dict:
        m = self.store.get(memory_id)
        if m is None:
            raise NotFound(memory_id)
        return memory_dict(m)

    def get_many(self, ids) -> dict[str, dict]:
        """{id: memory} for the ids that exist (any state)."""
        return {mid: memory_dict(m) for mid, m in self.store.get_many(ids).items()}

    def get_all(self, *, user_id: str = "me", include_invalid: bool = False) -> dict:
        return {"results": [memory_dict(m) for m in self.store.all(user_id, include_invalid)]}

    def history(self, memory_id: str) -> list[dict]:
        if self.store.get(memory_id) is None:
            raise NotFound(memory_id)
        return [
            {"id": h.id, "memory_id": h.memory_id, "event": h.event, "old_memory": h.old_memory,
             "new_memory": h.new_memory, "actor": h.actor, "created_at": h.created_at.isoformat(),
             "entry_id": h.entry_id, "job_id": h.job_id, "note": h.note}
            for h in self.store.history(memory_id)
        ]

    # -- the user's own changes ---------------------------------------------------------

    def update(self, memory_id: str, text: str) -> MemoryChanged:
        """A user edit: recorded in history with actor "user"; the memory becomes protected."""
        text = clean_text(text)
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            m = s.get(Memory, memory_id)
            if m is None:
                raise NotFound(memory_id)
            shaped = shape_fact(text, m.created_at)
            old = self.store.stage_update(s, change, m, shaped.text, actor="user")
            # The user's words decide the time fields exactly, also when an edit removes a date.
            m.about_start, m.about_end = shaped.about or (None, None)
            m.recurrence = shaped.recurrence
            s.add(m)
            s.commit()
            s.refresh(m)
            user_id, result = m.user_id, MemoryChanged(memory_dict(m, previous_memory=old), Changes.of(memories=[m.id]))
        self.store.apply_index(user_id, change)
        return result

    def delete(self, memory_id: str) -> MemoryChanged:
        """Forget a memory (restorable; its history keeps it)."""
        return self.set_state(memory_id, "invalid")

    def restore(self, memory_id: str) -> MemoryChanged:
        return self.set_state(memory_id, "active")

    def set_state(self, memory_id: str, state: str, actor: str = "user") -> MemoryChanged:
        """Forget (state "invalid") or restore ("active") one memory."""
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            m = s.get(Memory, memory_id)
            if m is None:
                raise NotFound(memory_id)
            if m.state != state:
                self.store.stage_state(s, change, m, state, actor=actor)
                s.commit()
                s.refresh(m)
            user_id, result = m.user_id, MemoryChanged(memory_dict(m), Changes.of(memories=[m.id]))
        self.store.apply_index(user_id, change)
        return result

    def forget_category(self, category: str, *, user_id: str = "me") -> MemoriesChanged:
        """Forget every active memory of a kind in one action (restore_memories undoes it)."""
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            rows = [m for m in s.exec(select(Memory).where(col(Memory.user_id) == user_id,
                                                           col(Memory.state) == "active"))
                    if categories.category_of(m) == category]
            for m in rows:
                self.store.stage_state(s, change, m, "invalid", actor="user", note=f"forgot all {category}")
            s.commit()
            ids = [m.id for m in rows]
        self.store.apply_index(user_id, change)
        return MemoriesChanged(ids, Changes.of(memories=ids))

    def restore_memories(self, memory_ids: list[str], *, user_id: str = "me") -> MemoriesChanged:
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            done = []
            for mid in memory_ids:
                m = s.get(Memory, mid)
                if m is not None and m.user_id == user_id and m.state == "invalid":
                    self.store.stage_state(s, change, m, "active", actor="user")
                    done.append(mid)
            s.commit()
        self.store.apply_index(user_id, change)
        return MemoriesChanged(done, Changes.of(memories=done))

    # -- what waits for the user: the write path's proposals, other apps' suggestions ------

    def proposals(self, *, user_id: str = "me") -> list[dict]:
        with Session(self.engine) as s:
            rows = s.exec(select(Proposal).where(col(Proposal.user_id) == user_id, col(Proposal.state) == "pending")
                          .order_by(col(Proposal.id))).all()
            mems = self.store.get_many([p.memory_id for p in rows])
        return [{"id": p.id, "memory_id": p.memory_id, "event": p.event, "memory": mems[p.memory_id].text,
                 "proposed": p.new_text, "reason": p.reason, "job_id": p.job_id} for p in rows]

    def resolve_proposal(self, proposal_id: int, accept: bool) -> MemoryChanged:
        change = Change()
        with self.write_lock, Session(self.engine) as s:
            p = s.get(Proposal, proposal_id)
            if p is None or p.state != "pending":
                raise NotFound(proposal_id)
            p.state = "accepted" if accept else "rejected"
            s.add(p)
            m = s.get(Memory, p.memory_id)
            if m is None:
                raise NotFound(p.memory_id)
            if accept and m.state == "active":
                if p.event == "UPDATE" and p.new_text:
                    self.store.stage_update(s, change, m, p.new_text, actor="user")
                elif p.event == "DELETE":
                    self.store.stage_state(s, change, m, "invalid", actor="user", note="confirmed LLM proposal")
            s.commit()
            user_id, result = m.user_id, MemoryChanged(memory_dict(m), Changes.of(memories=[m.id], proposals=True))
        self.store.apply_index(user_id, change)
        return result

    def decide_suggestion(self, suggestion_id: int, accept: bool, *, user_id: str = "me") -> SuggestionDecided:
        """Accepted, the suggestion becomes a memory as one added by hand (noting the app); rejected, none."""
        change, memory_id = Change(), None
        with self.write_lock, Session(self.engine) as s:
            row = app_suggestions.take_pending(s, suggestion_id, user_id)
            if accept:
                memory_id = self.stage_verbatim(s, change, user_id, clean_text(row.text), parse_time(None), None,
                                                {"suggested_by": row.app}).id
            app_suggestions.mark(s, row, accept, memory_id)
            s.commit()
        self.store.apply_index(user_id, change)
        return SuggestionDecided(suggestion_id, accept, memory_id, Changes.of(memories=[memory_id], proposals=True))

    # -- tidying: memories that say the same thing, merged (a preview accepted merge by merge, or a
    # background job) and a merge undone; and the running summary the write path keeps ----------------

    def consolidate(self, *, user_id: str = "me", include_user_edited: bool = False) -> int:
        """Queue a consolidation job. User-edited memories join only when the user agreed."""
        return self.queue.add("consolidate", user_id, {"include_user_edited": include_user_edited})

    def undo_consolidation(self, merged_id: str) -> MemoriesChanged:
        """Undo a merge: its originals come back (`ids`) and the merged memory goes."""
        restored = consolidate.undo_merge(self.engine, self.store, self.write_lock, merged_id)
        return MemoriesChanged(restored, Changes.of(memories=[merged_id, *restored]))

    def tidy_proposals(self, *, user_id: str = "me", include_user_edited: bool = False) -> list[tidy.TidyProposal]:
        """Merges of near-duplicate memories to show the user first (nothing changes; a read)."""
        return tidy.propose(self.store, self._llm(), user_id, threshold=self.tidy_threshold(), today=now(),
                            include_user_edited=include_user_edited)

    def apply_tidy(self, proposal: tidy.TidyProposal) -> tidy.TidyResult:
        """Merge one accepted proposal (undo_consolidation undoes it); refused if a member changed."""
        return tidy.apply(self.engine, self.store, self.write_lock, proposal)

    def tidy_threshold(self) -> float:
        """How alike memories must be to be offered as one (the settings', else the model's own)."""
        return self._settings().consolidation_threshold or self.store.embedder.related_threshold

    def summary(self, *, user_id: str = "me") -> str:
        """The running summary of the journal the write path reads with each new exchange."""
        return summary_text(self.engine, user_id)
