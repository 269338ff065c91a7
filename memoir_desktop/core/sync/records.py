"""An object's state as it travels: one JSON record per entry, memory, graph node or graph edge.

A record names every other object by its global id (an entry's uuid, a memory's id, a node's or an
edge's minted gid, a history row's gid), never by a local integer, so it means the same on every
computer. Its fields are split into *groups* that change together (an entry's text, its date, its
trash state, its privacy…); each group carries a stamp ``"<rank>|<hlc>"`` and merge.py keeps, group by
group, the value with the larger stamp. ``rank`` is 1 for what a person did (an entry; a memory's
user edits, forgets and restores) and 0 for what a model or the system did, and it is inherited along
a chain of changes, so a user's decision outranks a concurrent model change whatever the clocks say.
History rows (``events``) and a memory's source entries only ever accumulate (their union is kept).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from sqlmodel import Session, col, select

from memoir_desktop.core.storage.graph_store import GraphEdge, GraphNode
from memoir_desktop.core.storage.models import Entry, EntryHistory, History, Memory, MemorySource
from memoir_desktop.core.sync.state import Objects

ENTRY_GROUPS = {
    "content": ("content", "updated_at"),
    "time": ("created_at",),
    "trash": ("deleted_at",),
    "private": ("private",),
    "about": ("user_id", "role", "source", "tags", "time_zone", "source_ref", "reply_to", "kind"),
    "read": ("read_at",),  # the write path read it (a record from before has none: unread)
}
MEMORY_GROUPS = {
    "text": ("text", "hash", "memory_type", "about_start", "about_end", "recurrence", "category", "meta",
             "source_entry"),
    "state": ("state", "invalid_reason"),
    "when": ("created_at",),
    "about": ("user_id",),
}
# Which history events change which group (for the rank of a memory's group: the latest such event's actor).
MEMORY_EVENTS = {"text": ("ADD", "UPDATE", "CONSOLIDATE"), "state": ("ADD", "DELETE", "RESTORE")}
ENTRY_EVENTS = {"content": ("EDIT", "CONFLICT"), "time": ("MOVE",), "trash": ("DELETE", "RESTORE"),
                "private": ("PRIVATE", "SHARED")}
GRAPH_GROUPS = {"all": ()}  # a node or an edge changes as one
CONTENT_EVENTS = ("EDIT", "CONFLICT")
RANK = {"user": 1}


def iso(t: datetime | None) -> str | None:
    return t.isoformat() if t else None


def dt(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                          .encode("utf-8")).hexdigest()[:32]


def groups_of(kind: str) -> dict[str, tuple[str, ...]]:
    return {"entry": ENTRY_GROUPS, "memory": MEMORY_GROUPS}.get(kind, GRAPH_GROUPS)


def group_hashes(rec: dict) -> dict[str, str]:
    fields = rec["fields"]
    groups = groups_of(rec["t"])
    if "all" in groups:
        return {"all": digest(fields)}
    return {g: digest([fields.get(f) for f in names]) for g, names in groups.items()}


def state_hash(rec: dict) -> str:
    """What a local change is told apart by: the fields, the history and the sources (no stamps)."""
    return digest([rec["fields"], [e["id"] for e in rec.get("events", [])], rec.get("sources", [])])


# -- reading records out of the database ------------------------------------------------------

def entry_record(s: Session, e: Entry, ids: Objects, uuids: dict[int, str] | None = None) -> dict:
    def uuid_of(local: int | None) -> str | None:
        if local is None:
            return None
        if uuids is not None and local in uuids:
            return uuids[local]
        return s.exec(select(Entry.uuid).where(col(Entry.id) == local)).first()

    events = []
    content_event = None
    for h in s.exec(select(EntryHistory).where(col(EntryHistory.entry_id) == e.id).order_by(col(EntryHistory.id))):
        gid = ids.gid_of("ehist", h.id)
        events.append({"id": gid, "event": h.event, "old_content": h.old_content, "new_content": h.new_content,
                       "old_time": iso(h.old_time), "new_time": iso(h.new_time), "created_at": iso(h.created_at)})
        if h.event in CONTENT_EVENTS:
            content_event = gid
    return {"t": "entry", "id": e.uuid, "content_event": content_event, "events": events, "fields": {
        "user_id": e.user_id, "role": e.role, "content": e.content, "created_at": iso(e.created_at),
        "source": e.source, "updated_at": iso(e.updated_at), "deleted_at": iso(e.deleted_at),
        "tags": list(e.tags or []), "time_zone": e.time_zone, "source_ref": e.source_ref,
        "reply_to": uuid_of(e.reply_to), "kind": e.kind or "entry", "private": bool(e.private),
        "read_at": iso(e.read_at)}}


def memory_record(s: Session, m: Memory, ids: Objects, uuids: dict[int, str],
                  history: list[History] | None = None, sources: list[MemorySource] | None = None) -> dict:
    if history is None:
        history = list(s.exec(select(History).where(col(History.memory_id) == m.id).order_by(col(History.id))))
    if sources is None:
        sources = list(s.exec(select(MemorySource).where(col(MemorySource.memory_id) == m.id)))
    events = [{"id": ids.gid_of("mhist", h.id), "event": h.event, "old": h.old_memory, "new": h.new_memory,
               "actor": h.actor, "created_at": iso(h.created_at), "entry": uuids.get(h.entry_id) if h.entry_id else None,
               "note": h.note} for h in history]
    return {"t": "memory", "id": m.id, "events": events,
            "sources": sorted([uuids[x.entry_id], iso(x.created_at)] for x in sources if x.entry_id in uuids),
            "fields": {"user_id": m.user_id, "text": m.text, "hash": m.hash, "state": m.state,
                       "memory_type": m.memory_type, "created_at": iso(m.created_at), "updated_at": iso(m.updated_at),
                       "about_start": iso(m.about_start), "about_end": iso(m.about_end), "recurrence": m.recurrence,
                       "category": m.category, "invalid_reason": m.invalid_reason,
                       "source_entry": uuids.get(m.source_entry_id) if m.source_entry_id else None,
                       "user_edited": bool(m.user_edited), "meta": dict(m.meta or {})}}


def touched_groups(rec: dict, fresh: set[str]) -> set[str]:
    """The groups that history rows written here since the last capture acted on: a decision counts
    even when it left the value as it was (forgotten, then restored)."""
    table = ENTRY_EVENTS if rec["t"] == "entry" else MEMORY_EVENTS
    kinds = {e["event"] for e in rec.get("events", []) if e["id"] in fresh}
    return {g for g, names in table.items() if kinds & set(names)}


def memory_ranks(rec: dict) -> dict[str, int]:
    """Per group, the rank of the latest history event that changed it (who did it)."""
    out = {}
    for group, kinds in MEMORY_EVENTS.items():
        actor = next((e["actor"] for e in reversed(rec["events"]) if e["event"] in kinds), "llm")
        out[group] = RANK.get(actor, 0)
    return out


def node_record(n: GraphNode, ids: Objects, uuids: dict[int, str]) -> dict:
    return {"t": "node", "id": ids.gid_of("node", n.id), "fields": {
        "user_id": n.user_id, "name": n.name, "type": n.type, "created_at": iso(n.created_at),
        "source_entry": uuids.get(n.source_entry_id) if n.source_entry_id else None, "mentions": n.mentions}}


def edge_record(e: GraphEdge, ids: Objects, uuids: dict[int, str]) -> dict:
    return {"t": "edge", "id": ids.gid_of("edge", e.id), "fields": {
        "user_id": e.user_id, "source": ids.gid_of("node", e.source_id), "relation": e.relation,
        "target": ids.gid_of("node", e.target_id), "valid": bool(e.valid), "valid_from": iso(e.valid_from),
        "valid_to": iso(e.valid_to), "recorded_at": iso(e.recorded_at), "expired_at": iso(e.expired_at),
        "source_entry": uuids.get(e.source_entry_id) if e.source_entry_id else None,
        "invalidated_by": ids.gid_of("edge", e.invalidated_by) if e.invalidated_by else None,
        "hidden_with_entry": uuids.get(e.hidden_with_entry) if e.hidden_with_entry else None}}


def prefs_record(values: dict) -> dict:
    """The journal's own settings (shared_settings.py): one object, changed as one, by a person (rank 1)."""
    return {"t": "prefs", "id": "journal", "fields": dict(values)}


def tombstone(kind: str, gid: str) -> dict:
    """An object deleted forever (a purge): it never comes back, whatever arrives later."""
    return {"t": kind, "id": gid, "gone": True}


def entry_uuids(s: Session) -> dict[int, str]:
    return {i: u for i, u in s.exec(select(Entry.id, Entry.uuid)) if i is not None and u}
