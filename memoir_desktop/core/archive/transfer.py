"""Export and import of a whole journal as one JSON file (never the API key).

What travels: entries, memories with their history, running summaries, and the memory graph
(nodes and edges, invalid edges with their times included). Derived data does not: vector
indexes are rebuilt from the memories, node-name embeddings are recomputed on first use.

Import merges into the open journal: memories keep their ids (one already present is kept
as it is), entries get new ids and every reference to them is mapped; an entry already there
(same user, role, time and text) is not added twice. A user's graph is
taken only when that user has no graph here yet: merging two graphs would need node
resolution with the LLM's judgement, and guessing could tie a fact to the wrong person.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.inputs import MAX_ENTRY_CHARS
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.private_files import write_private
from memoir_desktop.core.storage.graph_store import GraphEdge, GraphNode
from memoir_desktop.core.storage.models import (
    Entry,
    EntryHistory,
    History,
    Memory,
    MemorySource,
    Summary,
    now,
    pk,
)
from memoir_desktop.core.storage.store import text_hash

FORMAT, VERSION = "memoir-export", 3  # 3: entry edits, trash, tags; memories' source entries
_NODE_DERIVED = ("embedding", "embed_model")


def _row(obj, drop: tuple[str, ...] = ()) -> dict:
    d = obj.model_dump()
    for key in drop:
        d.pop(key, None)
    for key, value in d.items():
        if isinstance(value, datetime):
            d[key] = value.isoformat()
    return d


def _dt(value):
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def export_journal(engine, path, *, passphrase: str | None = None) -> dict:
    """Write the export. With a passphrase the file is sealed (Argon2id + AES-GCM, crypto.seal):
    only the passphrase opens it, on any computer. Without one it is plain JSON."""
    with Session(engine) as s:
        data = {
            "format": FORMAT, "version": VERSION, "exported_at": now().isoformat(),
            "entries": [_row(e) for e in s.exec(select(Entry).order_by(col(Entry.id)))],
            "entry_history": [_row(h) for h in s.exec(select(EntryHistory).order_by(col(EntryHistory.id)))],
            "memory_sources": [_row(x) for x in s.exec(select(MemorySource))],
            "memories": [_row(m) for m in s.exec(select(Memory))],
            "history": [_row(h) for h in s.exec(select(History).order_by(col(History.id)))],
            "summaries": [_row(x) for x in s.exec(select(Summary).order_by(col(Summary.id)))],
            "graph_nodes": [_row(n, _NODE_DERIVED) for n in s.exec(select(GraphNode).order_by(col(GraphNode.id)))],
            "graph_edges": [_row(e) for e in s.exec(select(GraphEdge).order_by(col(GraphEdge.id)))],
        }
    body = json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")
    # Sealed in memory: a plain copy never touches the disk, not even as the temporary file.
    write_private(path, crypto.seal(body, passphrase) if passphrase is not None else body)
    return {k: len(v) for k, v in data.items() if isinstance(v, list)}


class PassphraseRequired(ValueError):
    """The export is encrypted and no passphrase was given."""


def is_encrypted_export(path) -> bool:
    try:
        with open(path, "rb") as f:
            return crypto.is_sealed(f.read(len(crypto.SEALED_MAGIC)))
    except OSError:
        return False


def read_export(path, passphrase: str | None = None) -> dict:
    """The parsed file; ValueError with a readable reason when it is not a memoir export, when it
    is encrypted and no passphrase is given (PassphraseRequired), or crypto.WrongPassphrase."""
    try:
        raw = Path(path).read_bytes()
        if crypto.is_sealed(raw):
            if not passphrase:
                raise PassphraseRequired(f"{Path(path).name} is an encrypted export: enter its passphrase")
            raw = crypto.unseal(raw, passphrase)
        data = json.loads(raw.decode("utf-8"))
    except (PassphraseRequired, crypto.WrongPassphrase):
        raise
    except crypto.SealedFileDamaged as exc:
        raise ValueError(f"{Path(path).name} is damaged: {exc} Nothing was imported.") from exc
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {Path(path).name}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{Path(path).name} is not a memoir export")
    check_export(data)
    return data


# What a row needs to be imported (the rest have defaults), by the export's list it is in.
_NEEDS = {
    "entries": ("entry", ("id", "user_id", "role", "content", "created_at")),
    "entry_history": ("entry change", ("entry_id", "event", "created_at")),
    "memory_sources": ("memory source", ("memory_id", "entry_id", "created_at")),
    "memories": ("memory", ("id", "user_id", "text")),  # a missing hash is the text's (store.text_hash)
    "history": ("memory change", ("memory_id", "event", "created_at")),
    "summaries": ("summary", ("user_id", "text", "created_at")),
    "graph_nodes": ("graph node", ("id", "user_id", "name", "created_at")),
    "graph_edges": ("graph relation", ("id", "user_id", "source_id", "relation", "target_id")),
}
_TIMES = ("created_at", "updated_at", "deleted_at", "old_time", "new_time", "about_start", "about_end",
          "valid_from", "valid_to", "recorded_at", "expired_at")


def check_export(data: dict) -> None:
    """Every row is read before anything is written (as the Day One reader does): the first one that
    cannot be imported is named, with what it lacks, in a ValueError, and nothing is imported."""
    for key, (noun, needs) in _NEEDS.items():
        rows = data.get(key, [])
        if not isinstance(rows, list):
            raise ValueError(f"the export's {key} are not a list; nothing was imported")
        for at, row in enumerate(rows, 1):
            where = f"{noun} {at} of {len(rows)}"
            if not isinstance(row, dict):
                raise ValueError(f"{where} is not a record; nothing was imported")
            where += _which(row)
            missing = [f for f in needs if row.get(f) is None]
            if missing:
                raise ValueError(f"{where} has no {' and no '.join(missing)}; nothing was imported")
            if key == "entries" and len(str(row["content"])) > MAX_ENTRY_CHARS:
                # The limit every entry keeps, however it arrives (core/inputs.py).
                raise ValueError(f"{where} has {len(str(row['content'])):,} characters; memoir keeps at most "
                                 f"{MAX_ENTRY_CHARS:,} in one entry; nothing was imported")
            for f in _TIMES:
                if row.get(f) is not None and not _is_time(row[f]):
                    raise ValueError(f"{where} has an unreadable {f} ({str(row[f])[:40]!r}); nothing was imported")


def _which(row: dict) -> str:
    """What tells the row apart for its writer: its id, and an entry's date and first words."""
    parts = [f"id {row['id']}"] if row.get("id") is not None else []
    if isinstance(row.get("created_at"), str) and "content" in row:
        parts.append(row["created_at"][:16].replace("T", " "))
    words = " ".join(str(row.get("content") or row.get("text") or row.get("name") or "").split())
    if words:
        parts.append(f'"{words[:40]}…"' if len(words) > 40 else f'"{words}"')
    return f" ({', '.join(parts)})" if parts else ""


def _is_time(value) -> bool:
    try:
        datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True


def is_memoir_export(path) -> bool:
    """Whether `path` looks like a memoir export (a JSON object naming its format), cheaply."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return crypto.is_sealed(head) or (head.lstrip()[:1] == b"{" and FORMAT.encode() in head)


# Long on purpose: one transaction, and the id maps (entries, memories) that each later table needs
# from the earlier ones; split, they would travel as half a dozen arguments.
def import_journal(engine, data: dict) -> tuple[dict, set[str]]:
    """Merge `data` (from `read_export`); returns (counts, users whose graph changed). The counts
    carry `changes` (the entries and memories brought in), so every screen shows them at once."""
    counts: dict[str, Any] = {"entries": 0, "memories": 0, "history": 0, "summaries": 0, "graph_nodes": 0, "graph_edges": 0}
    skipped_graphs: set[str] = set()
    graph_users: set[str] = set()
    with Session(engine) as s:
        entry_map: dict[int | None, int | None] = {}  # exported id -> new id (None stays None)
        new_entries: list[int] = []
        for e in data.get("entries", []):
            created = _dt(e["created_at"])
            # The same entry imported again (same user, role, time and text) is the same entry.
            same = s.exec(select(Entry.id).where(Entry.user_id == e["user_id"], Entry.role == e["role"],
                                                 Entry.created_at == created,
                                                 Entry.content == e["content"])).first()
            if same is not None:
                entry_map[e["id"]] = same
                continue
            row = Entry(user_id=e["user_id"], role=e["role"], content=e["content"], created_at=created,
                        source="import", tags=list(e.get("tags") or []), time_zone=e.get("time_zone"),
                        source_ref=e.get("source_ref"), updated_at=_dt(e.get("updated_at")),
                        deleted_at=_dt(e.get("deleted_at")), kind=e.get("kind") or "entry",
                        private=bool(e.get("private", False)))
            s.add(row)
            s.flush()
            entry_map[e["id"]] = pk(row)
            new_entries.append(pk(row))
            counts["entries"] += 1
        imported = {old: new for old, new in entry_map.items() if new is not None}
        for h in data.get("entry_history", []):
            if h["entry_id"] in imported:
                s.add(EntryHistory(**{**{k: v for k, v in h.items() if k != "id"}, "entry_id": imported[h["entry_id"]],
                                      "created_at": _dt(h["created_at"]), "old_time": _dt(h.get("old_time")),
                                      "new_time": _dt(h.get("new_time"))}))
        new_ids = set()
        for m in data.get("memories", []):
            if s.get(Memory, m["id"]) is not None:
                continue
            row = Memory(**{**m, "hash": m.get("hash") or text_hash(m["text"]),
                            "source_entry_id": entry_map.get(m.get("source_entry_id"))})
            for key in ("created_at", "updated_at", "about_start", "about_end"):
                setattr(row, key, _dt(getattr(row, key)))
            s.add(row)
            new_ids.add(row.id)
            counts["memories"] += 1
        s.flush()
        for h in data.get("history", []):
            if h["memory_id"] not in new_ids:
                continue
            h = {k: v for k, v in h.items() if k != "id"}
            h["created_at"] = _dt(h["created_at"])
            h["entry_id"] = entry_map.get(h.get("entry_id"))
            s.add(History(**h))
            counts["history"] += 1
        sources = data.get("memory_sources")
        if sources is None:  # a version-2 export: the source entry each memory names
            sources = [{"memory_id": m["id"], "entry_id": m.get("source_entry_id"), "created_at": m["created_at"]}
                       for m in data.get("memories", []) if m.get("source_entry_id") is not None]
        for x in sources:
            target = entry_map.get(x["entry_id"])
            if x["memory_id"] in new_ids and target is not None:
                s.merge(MemorySource(memory_id=x["memory_id"], entry_id=target, created_at=_dt(x["created_at"])))
        for x in data.get("summaries", []):
            created = _dt(x["created_at"])
            if s.exec(select(Summary.id).where(Summary.user_id == x["user_id"], Summary.created_at == created,
                                               Summary.text == x["text"])).first() is not None:
                continue
            s.add(Summary(user_id=x["user_id"], text=x["text"], upto_entry_id=entry_map.get(x.get("upto_entry_id")),
                          created_at=created))
            counts["summaries"] += 1

        node_map: dict[int, int] = {}
        for n in data.get("graph_nodes", []):
            user = n["user_id"]
            if user not in graph_users and user not in skipped_graphs:
                has_graph = s.exec(select(GraphNode.id).where(GraphNode.user_id == user).limit(1)).first()
                (skipped_graphs if has_graph is not None else graph_users).add(user)
            if user in skipped_graphs:
                continue
            fields = {k: v for k, v in n.items() if k not in ("id", *_NODE_DERIVED)}
            fields["created_at"] = _dt(fields["created_at"])
            fields["source_entry_id"] = entry_map.get(fields.get("source_entry_id"))
            row = GraphNode(**fields)
            s.add(row)
            s.flush()
            node_map[n["id"]] = pk(row)
            counts["graph_nodes"] += 1
        edge_map: dict[int, GraphEdge] = {}
        for e in data.get("graph_edges", []):
            if e["source_id"] not in node_map or e["target_id"] not in node_map:
                continue  # its user's graph was skipped
            fields = {k: v for k, v in e.items() if k != "id"}
            for key in ("valid_from", "valid_to", "recorded_at", "expired_at"):
                fields[key] = _dt(fields.get(key))
            # Jobs are not exported; the edge that invalidated this one is linked below, once
            # every edge has its new id.
            fields.update(source_id=node_map[e["source_id"]], target_id=node_map[e["target_id"]],
                          source_entry_id=entry_map.get(fields.get("source_entry_id")), job_id=None,
                          invalidated_by=None)
            edge_map[e["id"]] = GraphEdge(**fields)
            s.add(edge_map[e["id"]])
            counts["graph_edges"] += 1
        s.flush()
        for e in data.get("graph_edges", []):
            if e["id"] in edge_map and e.get("invalidated_by") in edge_map:
                edge_map[e["id"]].invalidated_by = edge_map[e["invalidated_by"]].id
        s.commit()
    if skipped_graphs:
        counts["graph_skipped_users"] = sorted(skipped_graphs)
    counts["changes"] = Changes.of(entries=new_entries, memories=new_ids, graph=bool(graph_users)).to_dict()
    return counts, graph_users
