"""How two states of one object become one, the same way on every computer (pure functions).

Group by group the value with the larger stamp wins (a last-writer-wins register per group, ordered
by ``rank`` then the hybrid logical clock): merging is commutative, associative and idempotent, so
devices that have seen the same records hold the same journal, in whatever order the records came.
History rows and a memory's sources are unions: nothing anyone did is dropped from an object's story.

An entry whose text was changed on two computers, neither having seen the other's edit, keeps both:
the later one (by stamp) is its text, the other stays in its history, with a CONFLICT row that names
both, and the caller tells the user once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memoir_desktop.core.sync.records import groups_of


def stamp(rank: int, hlc: str) -> str:
    return f"{rank}|{hlc}"


def rank_of(s: str | None) -> int:
    return int(s.split("|", 1)[0]) if s else 0


def hlc_of(s: str) -> str:
    return s.split("|", 1)[1]


@dataclass
class Conflict:
    """Both sides changed an entry's text without seeing each other's change."""

    kept: str
    other: str
    other_event: str  # the gid of the losing edit: names the conflict, the same on both sides


@dataclass
class Merged:
    record: dict
    conflict: Conflict | None = None
    changed_from: set[str] = field(default_factory=set)  # groups that took the other side's value


def merge(local: dict, remote: dict) -> Merged:
    """`local` and `remote`: two records of the same object, each with its `stamps`."""
    kind = local["t"]
    out_fields = dict(local["fields"])
    out_stamps = dict(local.get("stamps", {}))
    took: set[str] = set()
    groups = groups_of(kind)
    for group, names in groups.items():
        ls, rs = local.get("stamps", {}).get(group, ""), remote.get("stamps", {}).get(group, "")
        if rs > ls:
            took.add(group)
            out_stamps[group] = rs
            if group == "all":
                out_fields = dict(remote["fields"])
            else:
                for name in names:
                    out_fields[name] = remote["fields"].get(name)
    if kind == "memory":
        out_fields["user_edited"] = bool(local["fields"].get("user_edited") or remote["fields"].get("user_edited"))
        out_fields["updated_at"] = max(filter(None, [local["fields"].get("updated_at"),
                                                     remote["fields"].get("updated_at")]), default=None)
    record = {"t": kind, "id": local["id"], "fields": out_fields, "stamps": out_stamps}
    if "events" in local or "events" in remote:
        record["events"] = union_events(local.get("events", []), remote.get("events", []))
    if kind == "memory":
        record["sources"] = sorted({tuple(x) for x in [*local.get("sources", []), *remote.get("sources", [])]})
        record["sources"] = [list(x) for x in record["sources"]]
    conflict = None
    if kind == "entry":
        winner, loser = (remote, local) if "content" in took else (local, remote)
        record["content_event"] = winner.get("content_event")
        w_ids = {e["id"] for e in winner.get("events", [])}
        lost = loser.get("content_event")
        if (lost is not None and lost not in w_ids
                and winner["fields"].get("content") != loser["fields"].get("content")):
            conflict = Conflict(kept=winner["fields"]["content"], other=loser["fields"]["content"], other_event=lost)
    return Merged(record, conflict, took)


def union_events(a: list[dict], b: list[dict]) -> list[dict]:
    seen = {e["id"]: e for e in a}
    for e in b:
        seen.setdefault(e["id"], e)
    return sorted(seen.values(), key=lambda e: (e.get("created_at") or "", e["id"]))


def conflict_event(c: Conflict, when: str) -> dict:
    """The history row that keeps the losing text (its id is the same on both computers)."""
    return {"id": f"x-{c.other_event}", "event": "CONFLICT", "old_content": c.other, "new_content": c.kept,
            "old_time": None, "new_time": None, "created_at": when}
