"""What this computer remembers so that a sync place cannot fool it, and the checks made with it.

* the key epochs it holds (epochs.py), the public key pinned for each other computer the first time its
  key box was read (a later box with another key is not that computer), the computers removed and how
  far their files are taken;
* the highest head (log_format.py) seen of each other computer: a head older than that, or the same
  number with another hash chain, means the place was put back to an older copy (or written by someone
  else): nothing is merged from that computer, and the diarist is told which one and since when;
* what this computer uploaded (each file's size and SHA-256, and its hash chain), so a round finds its
  own files missing or changed and sends them again.

All of it lives in sync_state, inside the journal's encrypted database.
"""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import dataclass

from memoir_desktop.core.sync import state
from memoir_desktop.core.sync.report import Problem

HEAD_FORMAT = 2


def load(con, key: str, default):
    raw = state.get(con, key)
    if raw is None:
        return default
    try:
        return json.loads(raw)
    except ValueError:
        return default


def save(con, key: str, value) -> None:
    state.put(con, key, json.dumps(value, sort_keys=True))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def extend_chain(chain: str, name: str, digest: str) -> str:
    return hashlib.sha256(f"{chain}|{name}|{digest}".encode()).hexdigest()


def computer_name() -> str:
    """How this computer is named to the diarist on the others (inside its sealed head only)."""
    return (platform.node() or "a computer")[:60]


def head_payload(device: str, seq: int, snapshot: int, files: dict[str, list], chain: str, at: str) -> dict:
    return {"v": HEAD_FORMAT, "device": device, "name": computer_name(), "seq": seq, "snapshot": snapshot,
            "files": files, "chain": chain, "at": at}


@dataclass
class Head:
    device: str
    name: str
    seq: int
    snapshot: int
    files: dict[str, list]  # file name (seg-…, snap-…) -> [sha256, when it was sent]
    chain: str
    at: str
    epoch: int = 0  # the key epoch it was sealed under

    @classmethod
    def read(cls, data: dict, device: str, epoch: int = 0) -> Head | None:
        try:
            if data.get("device") != device:
                return None
            return cls(device, str(data.get("name") or device[:8]), int(data["seq"]), int(data.get("snapshot") or 0),
                       {str(k): list(v) for k, v in dict(data.get("files") or {}).items()}, str(data["chain"]),
                       str(data["at"]), epoch)
        except (KeyError, TypeError, ValueError):
            return None


def when(at: str | None) -> str:
    return (at or "")[:16].replace("T", " ") or "an unknown time"


def regression(head: Head, seen: dict | None) -> Problem | None:
    """The place holds an older head of this computer than one seen before (or another one at the same
    number): a rollback to an older copy, or files not written by it."""
    if not seen:
        return None
    old_seq, old_chain = int(seen.get("seq", 0)), str(seen.get("chain", ""))
    # A head sealed under an older key epoch than one seen from that computer was not written by it now
    # (a removed computer still holds the older keys).
    if head.seq < old_seq or (head.seq == old_seq and head.chain != old_chain) or head.epoch < int(seen.get("epoch", 0)):
        return Problem(head.device, "rolled_back", (
            f"The sync place is missing what {head.name} wrote since {when(head.at)}: it holds an older copy "
            f"of that computer's changes (up to change {head.seq}; this computer had already seen change "
            f"{old_seq}, from {when(seen.get('at'))}). Nothing from {head.name} was merged, and your journal "
            f"here is unchanged. Let {head.name} sync: it sends again what the place lost."), head.name, head.at)
    return None


def gap(device: str, name: str, first_missing: int, last: int | None, since: str | None) -> Problem:
    upto = f" to {last}" if last is not None and last > first_missing else ""
    return Problem(device, "missing", (
        f"The sync place is missing what {name} wrote since {when(since)} (its change {first_missing}{upto}): "
        f"lost on the way, or the place was put back to an older copy. Nothing after it was merged from "
        f"{name}, and your journal here is unchanged. The next sync on {name} sends it again."), name, since)
