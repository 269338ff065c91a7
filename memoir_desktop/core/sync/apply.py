"""Records from other devices into this journal: merged (merge.py) with what is here, written in the
caller's transaction, the derived indexes following after its commit.

The order inside a batch matters where one object names another: new entries first (memories and
graph relations name them), graph nodes before edges, memories, then what an entry's fate does to
what came from it (trash, restore, privacy: the journal's own cascade, which finds nothing left to do
when the other device's records already carried it), and purges last, through the journal's purge,
so the text goes from everything it was derived to here as it went on the other device.

An entry that arrives is never given a memorize job: the device that wrote it memorises it and its
memories follow it here (whichever comes first), so the LLM is paid once.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlmodel import Session, col, delete, select

from memoir_desktop.core.jobs import queue
from memoir_desktop.core.llm import shared_settings
from memoir_desktop.core.pipeline import cascade
from memoir_desktop.core.storage.graph_store import GraphEdge, GraphNode
from memoir_desktop.core.storage.models import (
    Entry,
    EntryHistory,
    FollowUp,
    History,
    Memory,
    MemorySource,
    Proposal,
    now,
    pk,
)
from memoir_desktop.core.storage.store import Change, stage_pending
from memoir_desktop.core.sync import merge as merging
from memoir_desktop.core.sync import records as rec
from memoir_desktop.core.sync.state import Objects

log = logging.getLogger(__name__)

_ORDER = {"entry": 0, "node": 1, "edge": 2, "memory": 3}


@dataclass
class Applied:
    """What a batch changed here, for the indexes and the report."""

    entries_index: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    entries_unindex: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    memory_changes: dict[str, Change] = field(default_factory=lambda: defaultdict(Change))
    graph_users: set[str] = field(default_factory=set)
    purge: list[tuple[int, str]] = field(default_factory=list)  # (local entry id, gid) to purge after the commit
    conflicts: list[dict] = field(default_factory=list)
    changed: int = 0
    entries: set[int] = field(default_factory=set)
    memories: set[str] = field(default_factory=set)


class Applier:
    def __init__(self, s: Session, ids: Objects, ctx: cascade.CascadeContext, when: str):
        self.s, self.ids, self.ctx, self.when = s, ids, ctx, when
        self.out = Applied()
        self.uuids = rec.entry_uuids(s)
        self._have_memory: set[str] | None = None  # ids of the memories here, read once per batch
        self._transitions: list[tuple[Entry, dict, dict]] = []
        self._pending_links: list[tuple[GraphEdge, str | None]] = []

    # -- the batch ------------------------------------------------------------------------

    def apply(self, records: list[dict]) -> Applied:
        live = [r for r in records if not r.get("gone")]
        gone = [r for r in records if r.get("gone")]
        live.sort(key=lambda r: _ORDER.get(r["t"], 9))
        new_entries: list[tuple[Entry, dict]] = []
        for r in live:
            try:
                if r["t"] == "entry":
                    made = self._entry(r)
                    if made is not None:
                        new_entries.append(made)
                elif r["t"] == "node":
                    self._node(r)
                elif r["t"] == "edge":
                    self._edge(r)
                elif r["t"] == "memory":
                    self._memory(r)
                elif r["t"] == shared_settings.KIND:
                    self._prefs(r)
            except (KeyError, TypeError, ValueError) as exc:  # a malformed record is skipped, not applied half
                log.warning("a synced %s could not be applied (%s)", r.get("t"), exc.__class__.__name__)
        for e, r in new_entries:  # replies name entries that may have come in the same batch
            self._link_reply(e, r["fields"].get("reply_to"))
        for e, old, new in self._transitions:
            self._fate(e, old, new)
        for r in sorted(gone, key=lambda r: -_ORDER.get(r["t"], 9)):  # memories and edges before nodes, entries
            self._gone(r)
        self._edge_links()
        return self.out

    # -- entries -------------------------------------------------------------------------------

    def _local_record(self, kind: str, gid: str, row, parts: tuple | None = None) -> dict:
        if kind == "entry":
            r = rec.entry_record(self.s, row, self.ids, self.uuids)
        elif kind == "memory":
            history, sources = parts if parts is not None else (None, None)
            r = rec.memory_record(self.s, row, self.ids, self.uuids, history, sources)
        elif kind == "node":
            r = rec.node_record(row, self.ids, self.uuids)
        else:
            r = rec.edge_record(row, self.ids, self.uuids)
        shadow = self.ids.shadow.get((kind, gid))
        r["stamps"] = shadow[1].get("stamps", {}) if shadow else {}
        return r

    def _settle(self, kind: str, gid: str, row, stamps: dict, remote: dict, parts: tuple | None = None) -> None:
        """The shadow of an object just written: its state as now in the database, the merged stamps;
        exported again when it differs from what came (a true merge: the others converge on it).
        `parts`: a new memory's history and source rows, as just written (saves reading them back)."""
        self.s.flush()
        local = self._local_record(kind, gid, row, parts)
        h = rec.state_hash(local)
        # Sent on when the others lack part of it (a group won here, a history row they have not
        # seen); never for a mere difference of form, which would bounce between devices forever.
        push = stamps != remote.get("stamps", {}) or \
            {e["id"] for e in local.get("events", [])} - {e["id"] for e in remote.get("events", [])} != set()
        self.ids.set_shadow(kind, gid, h, {"stamps": stamps, "groups": rec.group_hashes(local)}, push=push,
                            local=row.id)
        self.out.changed += 1

    def _entry(self, r: dict) -> tuple[Entry, dict] | None:
        gid, f = r["id"], r["fields"]
        shadow = self.ids.shadow.get(("entry", gid))
        if shadow and shadow[3]:
            return None  # purged here: it never comes back
        e = self.s.exec(select(Entry).where(col(Entry.uuid) == gid)).first()
        if e is None:
            e = Entry(uuid=gid, user_id=f["user_id"], role=f["role"], content=f["content"],
                      created_at=rec.dt(f["created_at"]) or now(), source=f.get("source") or "journal",
                      updated_at=rec.dt(f.get("updated_at")), deleted_at=rec.dt(f.get("deleted_at")),
                      tags=list(f.get("tags") or []), time_zone=f.get("time_zone"), source_ref=f.get("source_ref"),
                      kind=f.get("kind") or "entry", private=bool(f.get("private")),
                      read_at=rec.dt(f.get("read_at")))
            self.s.add(e)
            self.s.flush()
            self.uuids[pk(e)] = gid
            self.ids.link("entry", gid, pk(e))
            self._add_entry_events(e, r.get("events", []))
            stage_pending(self.s, "ent", pk(e), e.user_id)
            (self.out.entries_unindex if e.deleted_at else self.out.entries_index)[e.user_id].add(pk(e))
            self.out.entries.add(pk(e))
            self._settle("entry", gid, e, dict(r.get("stamps", {})), r)
            return e, r
        local = self._local_record("entry", gid, e)
        m = merging.merge(local, r)
        merged = m.record
        mf = merged["fields"]
        old = {"deleted_at": e.deleted_at, "private": bool(e.private)}
        if mf["content"] != e.content:
            e.content = mf["content"]
            stage_pending(self.s, "ent", pk(e), e.user_id)
            self.out.entries_index[e.user_id].add(pk(e))
        e.updated_at = rec.dt(mf.get("updated_at"))
        e.created_at = rec.dt(mf["created_at"]) or e.created_at
        e.tags, e.time_zone, e.source_ref = list(mf.get("tags") or []), mf.get("time_zone"), mf.get("source_ref")
        e.read_at = rec.dt(mf.get("read_at"))
        self.s.add(e)
        self._add_entry_events(e, merged.get("events", []))
        if m.conflict is not None:
            self._conflict(e, m.conflict)
        new = {"deleted_at": rec.dt(mf.get("deleted_at")), "private": bool(mf.get("private"))}
        if new != old:
            self._transitions.append((e, old, new))
        if "about" in m.changed_from:
            self._link_reply(e, mf.get("reply_to"))
        self.out.entries.add(pk(e))
        self._settle("entry", gid, e, merged["stamps"], r)
        return None

    def _add_entry_events(self, e: Entry, events: list[dict]) -> None:
        added = []
        for ev in events:
            if self.ids.local_of("ehist", ev["id"]) is not None:
                continue
            h = EntryHistory(entry_id=pk(e), event=ev["event"], old_content=ev.get("old_content"),
                             new_content=ev.get("new_content"), old_time=rec.dt(ev.get("old_time")),
                             new_time=rec.dt(ev.get("new_time")), created_at=rec.dt(ev.get("created_at")) or now())
            self.s.add(h)
            added.append((ev["id"], h))
        if added:
            self.s.flush()
        for gid, h in added:
            self.ids.link("ehist", gid, pk(h))

    def _conflict(self, e: Entry, c: merging.Conflict) -> None:
        """Both texts stay: the other in the history (a CONFLICT row), and the user is told once."""
        ev = merging.conflict_event(c, now().isoformat())
        self._add_entry_events(e, [ev])
        notice = f"conflict-{c.other_event}"
        self.s.connection().execute(text(
            "INSERT OR IGNORE INTO sync_notice (id, kind, entry_id, entry_uuid, created_at) "
            "VALUES (:i, 'entry_conflict', :e, :u, :t)"), {"i": notice, "e": pk(e), "u": e.uuid, "t": now().isoformat()})
        self.out.conflicts.append({"notice": notice, "entry_id": pk(e)})

    def _link_reply(self, e: Entry, reply_gid: str | None) -> None:
        target = self.ids.local_of("entry", reply_gid)
        e.reply_to = int(target) if target is not None else None
        self.s.add(e)

    def _fate(self, e: Entry, old: dict, new: dict) -> None:
        """Trash, restore, private, shared: the journal's cascade, as the other device ran it."""
        change = self.out.memory_changes[e.user_id]
        eid = pk(e)
        if old["deleted_at"] is None and new["deleted_at"] is not None:
            e.deleted_at = new["deleted_at"]
            self.s.add(e)
            out = cascade.hide_entry(self.ctx, self.s, change, e)
            self._touched(e, out)
            self.out.entries_unindex[e.user_id].add(eid)
            self.out.entries_index[e.user_id].discard(eid)
        elif old["deleted_at"] is not None and new["deleted_at"] is None:
            e.deleted_at = None
            self.s.add(e)
            out = cascade.unhide_entry(self.ctx, self.s, change, e)
            self._touched(e, out)
            self.out.entries_index[e.user_id].add(eid)
        else:
            e.deleted_at = new["deleted_at"]
        if old["private"] != new["private"]:
            e.private = new["private"]
            self.s.add(e)
            if new["private"]:
                out = cascade.hide_entry(self.ctx, self.s, change, e, reason=cascade.SOURCE_PRIVATE)
                queue.cancel_reads_of(self.s, e.user_id, pk(e), "the entry was made private")
            else:
                out = cascade.unhide_entry(self.ctx, self.s, change, e, reason=cascade.SOURCE_PRIVATE)
            self._touched(e, out)
        self.s.flush()

    def _touched(self, e: Entry, out: cascade.Touched) -> None:
        """What the cascade changed here beyond the records: sent on at the next capture."""
        self.out.memories.update(out.memories)
        for mid in out.memories:
            self._push("memory", mid)
        for edge in out.edges:
            gid = self.ids.gid_of("edge", edge, mint=False)
            if gid is not None:
                self._push("edge", gid)
        if out.edges:
            self.out.graph_users.add(e.user_id)

    def _push(self, kind: str, gid: str) -> None:
        shadow = self.ids.shadow.get((kind, gid))
        if shadow is not None and not shadow[3]:
            self.ids.set_shadow(kind, gid, shadow[0], shadow[1], push=True)

    # -- memories ------------------------------------------------------------------------------

    def _memory(self, r: dict) -> None:
        gid, f = r["id"], r["fields"]
        shadow = self.ids.shadow.get(("memory", gid))
        if shadow and shadow[3]:
            return
        if self._have_memory is None:
            self._have_memory = set(self.s.exec(select(Memory.id)))
        m = self.s.get(Memory, gid) if gid in self._have_memory else None
        fresh = m is None
        change = self.out.memory_changes[f["user_id"]]
        if m is None:
            m = Memory(id=gid, user_id=f["user_id"], text=f["text"], hash=f["hash"], state=f["state"])
            merged = dict(r)
            merged["stamps"] = dict(r.get("stamps", {}))
        else:
            merged = merging.merge(self._local_record("memory", gid, m), r).record
        mf = merged["fields"]
        for name in ("text", "hash", "state", "memory_type", "recurrence", "category", "invalid_reason", "user_id"):
            setattr(m, name, mf.get(name))
        for name in ("created_at", "updated_at", "about_start", "about_end"):
            setattr(m, name, rec.dt(mf.get(name)) or (now() if name in ("created_at", "updated_at") else None))
        m.memory_type = m.memory_type or "semantic"
        m.user_edited = bool(mf.get("user_edited"))
        m.meta = dict(mf.get("meta") or {})
        src = self.ids.local_of("entry", mf.get("source_entry"))
        m.source_entry_id = int(src) if src is not None else None
        self.s.add(m)
        self.s.flush()
        added = []
        for ev in merged.get("events", []):
            if self.ids.local_of("mhist", ev["id"]) is not None:
                continue
            entry = self.ids.local_of("entry", ev.get("entry"))
            h = History(memory_id=gid, event=ev["event"], old_memory=ev.get("old"), new_memory=ev.get("new"),
                        actor=ev.get("actor") or "llm", created_at=rec.dt(ev.get("created_at")) or now(),
                        entry_id=int(entry) if entry is not None else None, note=ev.get("note"))
            self.s.add(h)
            added.append((ev["id"], h))
        if added:
            self.s.flush()
        for hid, h in added:
            self.ids.link("mhist", hid, pk(h))
        sources = []
        for entry_gid, created in merged.get("sources", []):
            entry = self.ids.local_of("entry", entry_gid)
            if entry is not None and (fresh or self.s.get(MemorySource, (gid, int(entry))) is None):
                x = MemorySource(memory_id=gid, entry_id=int(entry), created_at=rec.dt(created) or now())
                self.s.add(x)
                sources.append(x)
        if m.state == "active":
            change.upsert[gid] = m.text
            change.remove.discard(gid)
        else:
            change.remove.add(gid)
            change.upsert.pop(gid, None)
        stage_pending(self.s, "mem", gid, m.user_id)
        self.out.memories.add(gid)
        self._have_memory.add(gid)
        self._settle("memory", gid, m, merged["stamps"], r,
                     ([h for _, h in added], sources) if fresh else None)

    # -- the graph -----------------------------------------------------------------------------

    def _node(self, r: dict) -> None:
        gid, f = r["id"], r["fields"]
        shadow = self.ids.shadow.get(("node", gid))
        if shadow and shadow[3]:
            return
        local = self.ids.local_of("node", gid)
        n = self.s.get(GraphNode, int(local)) if local is not None else None
        stamps = dict(r.get("stamps", {}))
        if n is None:
            # The same person or place named on two computers is one node (exact name and type).
            n = self.s.exec(select(GraphNode).where(col(GraphNode.user_id) == f["user_id"],
                                                    col(GraphNode.name) == f["name"],
                                                    col(GraphNode.type) == f["type"])).first()
            if n is None:
                n = GraphNode(user_id=f["user_id"], name=f["name"], type=f["type"])
        else:
            merged = merging.merge(self._local_record("node", gid, n), r).record
            f, stamps = merged["fields"], merged["stamps"]
        n.created_at = rec.dt(f.get("created_at")) or n.created_at
        n.mentions = int(f.get("mentions") or 1)
        src = self.ids.local_of("entry", f.get("source_entry"))
        n.source_entry_id = int(src) if src is not None else None
        self.s.add(n)
        self.s.flush()
        self.ids.link("node", gid, pk(n))
        self.out.graph_users.add(n.user_id)
        self._settle("node", gid, n, stamps, r)

    def _edge(self, r: dict) -> None:
        gid, f = r["id"], r["fields"]
        shadow = self.ids.shadow.get(("edge", gid))
        if shadow and shadow[3]:
            return
        local = self.ids.local_of("edge", gid)
        e = self.s.get(GraphEdge, int(local)) if local is not None else None
        stamps = dict(r.get("stamps", {}))
        if e is not None:
            merged = merging.merge(self._local_record("edge", gid, e), r).record
            f, stamps = merged["fields"], merged["stamps"]
        source, target = self.ids.local_of("node", f["source"]), self.ids.local_of("node", f["target"])
        if source is None or target is None:
            log.info("a synced graph relation names a node not here yet; it waits for it")
            return
        if e is None:
            e = GraphEdge(user_id=f["user_id"], source_id=int(source), relation=f["relation"], target_id=int(target))
        e.source_id, e.target_id, e.relation = int(source), int(target), f["relation"]
        e.valid = bool(f.get("valid"))
        for name in ("valid_from", "valid_to", "recorded_at", "expired_at"):
            setattr(e, name, rec.dt(f.get(name)) or (now() if name == "recorded_at" else None))
        src = self.ids.local_of("entry", f.get("source_entry"))
        e.source_entry_id = int(src) if src is not None else None
        hidden = self.ids.local_of("entry", f.get("hidden_with_entry"))
        e.hidden_with_entry = int(hidden) if hidden is not None else None
        self.s.add(e)
        self.s.flush()
        self.ids.link("edge", gid, pk(e))
        self._pending_links.append((e, f.get("invalidated_by")))
        self.out.graph_users.add(e.user_id)
        self._settle("edge", gid, e, stamps, r)

    def _edge_links(self) -> None:
        for e, by in self._pending_links:
            target = self.ids.local_of("edge", by)
            e.invalidated_by = int(target) if target is not None else None
            self.s.add(e)
        self.s.flush()

    # -- the journal's settings --------------------------------------------------------------------

    def _prefs(self, r: dict) -> None:
        """The journal's AI settings from another computer, merged with the ones here (the later change
        wins); after the round the Sync part lets this computer take them (shared_settings.adopt)."""
        gid = r["id"]
        values, stamps = r["fields"], dict(r.get("stamps", {}))
        here = shared_settings.read(self.s)
        if here is not None:
            shadow = self.ids.shadow.get((shared_settings.KIND, gid))
            mine = {**rec.prefs_record(here), "stamps": shadow[1].get("stamps", {}) if shadow else {}}
            merged = merging.merge(mine, r).record
            values, stamps = merged["fields"], merged["stamps"]
        if not isinstance(values, dict):
            raise ValueError("settings that are not a mapping")
        shared_settings.write(self.s, values)
        local = rec.prefs_record(shared_settings.read(self.s) or {})
        self.ids.set_shadow(shared_settings.KIND, gid, rec.state_hash(local),
                            {"stamps": stamps, "groups": rec.group_hashes(local)},
                            push=stamps != r.get("stamps", {}), local=shared_settings.GID)
        self.out.changed += 1

    # -- deleted forever -------------------------------------------------------------------------

    def _gone(self, r: dict) -> None:
        kind, gid = r["t"], r["id"]
        shadow = self.ids.shadow.get((kind, gid))
        if shadow and shadow[3]:
            return
        local = self.ids.local_of(kind, gid)
        if kind == "entry":
            e = self.s.exec(select(Entry).where(col(Entry.uuid) == gid)).first()
            if e is not None:
                if e.deleted_at is None:  # the journal purges from the trash: it passes through it
                    e.deleted_at = now()
                    self.s.add(e)
                    out = cascade.hide_entry(self.ctx, self.s, self.out.memory_changes[e.user_id], e)
                    self._touched(e, out)
                self.out.purge.append((pk(e), gid))
                return  # its shadow is set once the purge is done
        elif kind == "memory" and local is not None:
            m = self.s.get(Memory, gid)
            if m is not None:
                hist = [str(i) for i in self.s.exec(select(History.id).where(col(History.memory_id) == gid))]
                for table in (Proposal, FollowUp, History, MemorySource):
                    self.s.exec(delete(table).where(col(table.memory_id) == gid))  # type: ignore[attr-defined]
                self.s.flush()
                self.s.delete(m)
                self.ids.forget_events("mhist", hist)
                self.out.memory_changes[m.user_id].remove.add(gid)
                self.out.memory_changes[m.user_id].upsert.pop(gid, None)
                self.out.memories.add(gid)
        elif kind == "edge" and local is not None:
            e = self.s.get(GraphEdge, int(local))
            if e is not None:
                for other in self.s.exec(select(GraphEdge).where(col(GraphEdge.invalidated_by) == e.id)):
                    other.invalidated_by = None
                    self.s.add(other)
                self.s.flush()
                self.s.delete(e)
                self.out.graph_users.add(e.user_id)
        elif kind == "node" and local is not None:
            n = self.s.get(GraphNode, int(local))
            used = self.s.exec(select(GraphEdge.id).where((col(GraphEdge.source_id) == int(local))
                                                          | (col(GraphEdge.target_id) == int(local)))).first()
            if n is not None and used is None:
                self.s.delete(n)
                self.out.graph_users.add(n.user_id)
        self.s.flush()
        self.ids.set_shadow(kind, gid, None, {}, gone=True)
        self.out.changed += 1
