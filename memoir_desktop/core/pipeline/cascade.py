"""Memories follow their source entries.

Every memory knows the entries it came from or was confirmed by (MemorySource). When the user
- trashes an entry: the memories whose only live source it was become invalid ("source deleted")
  and its graph relations are hidden; restoring the entry brings both back;
- deletes it forever (from the trash): its text and everything derived from it alone go — the
  memories only it supported (their rows and history), their vectors, its graph relations, its
  episodic index entry, the jobs that read it; memories other entries support stay, without it;
- edits or moves it: its memories are marked "source changed" and a reconcile job re-reads the
  entry through the write path (prepare_reconcile): facts still stated stay, changed ones are
  UPDATEd, ones the new text no longer supports are invalidated ("source edited"), user-edited
  memories get proposals; graph relations the entry no longer states are invalidated.

mem0, Zep and Graphiti leave facts derived from a deleted or corrected source in place; a diarist
who corrects a line expects the memory to follow.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, delete, select

from memoir_desktop.core.jobs import queue
from memoir_desktop.core.pipeline.graph import GraphMemory
from memoir_desktop.core.search.episodes import EpisodeIndex
from memoir_desktop.core.storage.graph_store import GraphEdge, GraphNode
from memoir_desktop.core.storage.models import (
    Entry,
    EntryHistory,
    FollowUp,
    History,
    Memory,
    MemorySource,
    Proposal,
    Summary,
    now,
)
from memoir_desktop.core.storage.store import Change, MemoryStore

log = logging.getLogger(__name__)

SOURCE_DELETED = "source deleted"
SOURCE_EDITED = "source edited"
SOURCE_CHANGED = "source changed"
SOURCE_PRIVATE = "source private"  # the user made the entry private: nothing from it goes to an LLM


@dataclass
class CascadeContext:
    """The derived indexes an entry's fate touches, kept in step after each commit."""

    store: MemoryStore
    episodes: EpisodeIndex
    graph: GraphMemory

    def reindex_entry(self, user_id: str, entry_id: int, change: Change) -> None:
        with Session(self.store.engine) as s:
            e = s.get(Entry, entry_id)
        if e is not None and e.deleted_at is None:
            self._safe(lambda: self.episodes.index(user_id, [e]))
        self._safe(lambda: self.store.apply_index(user_id, change))

    def after_hide(self, user_id: str, entry_id: int, change: Change, graph: bool) -> None:
        self._safe(lambda: self.episodes.remove(user_id, [entry_id]))
        self.after_memories_hidden(user_id, change, graph)

    def after_memories_hidden(self, user_id: str, change: Change, graph: bool) -> None:
        self._safe(lambda: self.store.apply_index(user_id, change))
        if graph:
            self.graph.after_commit(user_id)

    def after_unhide(self, user_id: str, entry_id: int, change: Change, graph: bool) -> None:
        self.reindex_entry(user_id, entry_id, change)
        if graph:
            self.graph.after_commit(user_id)

    def after_purge(self, user_id: str, entry_id: int, change: Change) -> None:
        self.after_hide(user_id, entry_id, change, True)

    @staticmethod
    def _safe(fn) -> None:
        try:
            fn()
        except Exception as exc:  # SQLite is committed; derived indexes are repaired by reconcile
            log.warning("index update after an entry change failed (%s); will reconcile", exc.__class__.__name__)


# -- sources ----------------------------------------------------------------------------------


def memories_of(s: Session, entry_id: int) -> list[Memory]:
    ids = s.exec(select(MemorySource.memory_id).where(col(MemorySource.entry_id) == entry_id)).all()
    return list(s.exec(select(Memory).where(col(Memory.id).in_(ids)))) if ids else []


def live_sources(s: Session, memory_id: str, *, besides: int | None = None) -> list[int]:
    """The entries supporting a memory that are not in the trash (optionally without one)."""
    rows = s.exec(select(MemorySource.entry_id).join(Entry, col(Entry.id) == col(MemorySource.entry_id))
                  .where(col(MemorySource.memory_id) == memory_id, col(Entry.deleted_at).is_(None))).all()
    return [e for e in rows if e != besides]


def mark_source_changed(s: Session, entry_id: int) -> list[str]:
    touched = []
    for m in memories_of(s, entry_id):
        if m.state == "active":
            m.flag = SOURCE_CHANGED
            s.add(m)
            touched.append(m.id)
    return touched


def move_recorded_times(s: Session, entry_id: int, old: datetime, new: datetime) -> list[str]:
    """Memories recorded from this entry alone were recorded "as of" its date: they move with it."""
    moved = []
    for m in memories_of(s, entry_id):
        others = s.exec(select(MemorySource.entry_id).where(col(MemorySource.memory_id) == m.id,
                                                            col(MemorySource.entry_id) != entry_id)).all()
        if not others:
            m.created_at = m.created_at + (new - old)
            s.add(m)
            moved.append(m.id)
    return moved


# -- trash and restore ------------------------------------------------------------------------


@dataclass
class Touched:
    memories: list[str] = field(default_factory=list)
    edges: list[int] = field(default_factory=list)


def hide_entry(ctx: CascadeContext, s: Session, change: Change, e: Entry, reason: str = SOURCE_DELETED) -> Touched:
    out = Touched()
    eid = e.id
    assert eid is not None
    for m in memories_of(s, eid):
        if m.state != "active" or live_sources(s, m.id, besides=eid):
            continue  # also said elsewhere: it stays
        ctx.store.stage_state(s, change, m, "invalid", actor="system", entry_id=eid, note=reason, reason=reason)
        out.memories.append(m.id)
    when = now()
    for edge in s.exec(select(GraphEdge).where(col(GraphEdge.source_entry_id) == eid, col(GraphEdge.valid))):
        edge.valid, edge.expired_at, edge.hidden_with_entry = False, when, eid
        s.add(edge)
        out.edges.append(edge.id)  # type: ignore[arg-type]
    if out.edges:
        ctx.graph.store.invalidate_cache(e.user_id)
    return out


def unhide_entry(ctx: CascadeContext, s: Session, change: Change, e: Entry, reason: str = SOURCE_DELETED) -> Touched:
    """Undo hide_entry(reason). A private entry taken out of the trash keeps its graph relations hidden."""
    out = Touched()
    eid = e.id
    assert eid is not None
    for m in memories_of(s, eid):
        if m.state == "invalid" and m.invalid_reason == reason:
            ctx.store.stage_state(s, change, m, "active", actor="system", entry_id=eid,
                                  note="source restored" if reason == SOURCE_DELETED else "source shared again")
            out.memories.append(m.id)
    hidden = [] if (e.private and reason == SOURCE_DELETED) or e.deleted_at is not None else \
        s.exec(select(GraphEdge).where(col(GraphEdge.hidden_with_entry) == eid))
    for edge in hidden:
        edge.valid, edge.expired_at, edge.hidden_with_entry = True, None, None
        s.add(edge)
        out.edges.append(edge.id)  # type: ignore[arg-type]
    if out.edges:
        ctx.graph.store.invalidate_cache(e.user_id)
    return out


# -- delete forever ---------------------------------------------------------------------------


@dataclass
class PurgePlan:
    entry_id: int
    text: str
    memory_ids: list[str] = field(default_factory=list)  # made only from this entry: deleted
    memory_texts: list[str] = field(default_factory=list)
    history_rows: int = 0  # of those memories
    kept: list[str] = field(default_factory=list)  # also supported by other entries: kept without it
    edges: list[int] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)  # graph nodes left with no relation
    jobs: list[int] = field(default_factory=list)
    entry_history_rows: int = 0

    def as_dict(self) -> dict:
        return {"entry_id": self.entry_id, "text": self.text, "memories": self.memory_texts,
                "memory_ids": self.memory_ids, "memory_history_rows": self.history_rows,
                "memories_kept": len(self.kept), "graph_relations": len(self.edges), "graph_nodes": len(self.nodes),
                "jobs": len(self.jobs), "entry_history_rows": self.entry_history_rows, "episodic": 1,
                "backups_note": "backups made before still hold it"}


def purge_plan(s: Session, e: Entry) -> PurgePlan:
    eid = e.id
    assert eid is not None
    plan = PurgePlan(eid, e.content)
    for m in memories_of(s, eid):
        others = s.exec(select(MemorySource.entry_id).where(col(MemorySource.memory_id) == m.id,
                                                            col(MemorySource.entry_id) != eid)).all()
        if others:
            plan.kept.append(m.id)
        else:
            plan.memory_ids.append(m.id)
            plan.memory_texts.append(m.text)
    if plan.memory_ids:
        plan.history_rows = len(s.exec(select(History.id).where(col(History.memory_id).in_(plan.memory_ids))).all())
    plan.edges = [i for i in s.exec(select(GraphEdge.id).where(col(GraphEdge.source_entry_id) == eid)) if i]
    gone = set(plan.edges)
    for n in s.exec(select(GraphNode).where(col(GraphNode.source_entry_id) == eid)):
        left = s.exec(select(GraphEdge.id).where((col(GraphEdge.source_id) == n.id) | (col(GraphEdge.target_id) == n.id)))
        if not set(left) - gone:
            plan.nodes.append(n.id)  # type: ignore[arg-type]
    plan.jobs = queue.naming(s, e.user_id, eid)
    plan.entry_history_rows = len(s.exec(select(EntryHistory.id).where(col(EntryHistory.entry_id) == eid)).all())
    return plan


def purge(ctx: CascadeContext, s: Session, change: Change, e: Entry, plan: PurgePlan) -> None:
    """Remove the entry and what only it produced, everywhere in SQLite, in the caller's transaction;
    the vectors and lexical entries follow after the commit (CascadeContext.after_purge)."""
    eid = plan.entry_id
    ids = plan.memory_ids
    if ids:
        s.exec(delete(Proposal).where(col(Proposal.memory_id).in_(ids)))  # type: ignore[call-overload]
        s.exec(delete(FollowUp).where(col(FollowUp.memory_id).in_(ids)))  # type: ignore[call-overload]
        s.exec(delete(History).where(col(History.memory_id).in_(ids)))  # type: ignore[call-overload]
        s.exec(delete(MemorySource).where(col(MemorySource.memory_id).in_(ids)))  # type: ignore[call-overload]
        s.exec(delete(Memory).where(col(Memory.id).in_(ids)))  # type: ignore[call-overload]
        change.remove.update(ids)
    # Memories other entries support lose this source, and history rows naming it keep no link.
    s.exec(delete(MemorySource).where(col(MemorySource.entry_id) == eid))  # type: ignore[call-overload]
    for m in s.exec(select(Memory).where(col(Memory.source_entry_id) == eid)):
        m.source_entry_id = next(iter(s.exec(select(MemorySource.entry_id).where(
            col(MemorySource.memory_id) == m.id)).all()), None)
        s.add(m)
    for h in s.exec(select(History).where(col(History.entry_id) == eid)):
        h.entry_id = None
        s.add(h)
    if plan.edges:
        for edge in s.exec(select(GraphEdge).where(col(GraphEdge.invalidated_by).in_(plan.edges))):
            edge.invalidated_by = None
            s.add(edge)
        s.flush()
        s.exec(delete(GraphEdge).where(col(GraphEdge.id).in_(plan.edges)))  # type: ignore[call-overload]
    if plan.nodes:
        s.exec(delete(GraphNode).where(col(GraphNode.id).in_(plan.nodes)))  # type: ignore[call-overload]
    for n in s.exec(select(GraphNode).where(col(GraphNode.source_entry_id) == eid)):
        n.source_entry_id = None
        s.add(n)
    queue.delete(s, plan.jobs)
    # The running summary may quote it: it is dropped and written again without it.
    drop_summaries(s, e.user_id)
    s.exec(delete(EntryHistory).where(col(EntryHistory.entry_id) == eid))  # type: ignore[call-overload]
    s.flush()
    s.delete(e)
    ctx.graph.store.invalidate_cache(e.user_id)


def drop_summaries(s: Session, user_id: str, since_entry_id: int | None = None) -> None:
    """Drop the running summaries that may quote an entry (all, or those written after it was read:
    a summary covers every entry up to its `upto_entry_id`) and queue one written afresh without it."""
    q = delete(Summary).where(col(Summary.user_id) == user_id)
    if since_entry_id is not None:
        q = q.where(col(Summary.upto_entry_id) >= since_entry_id)
    s.exec(q)  # type: ignore[call-overload]
    queue.queue_summary_rebuild(s, user_id)
