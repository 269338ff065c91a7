"""The target's layout and the files' payloads.

    devices/<device>/key              the journal key in its lock box (sealing.lock_box)
    devices/<device>/seg-<seq>        one segment of the device's append-only change log (sealed)
    devices/<device>/snap-<seq>       a snapshot: the whole journal as that device had it once its
                                      segment <seq> was written, with the segments of every other
                                      device it had applied (its frontier) (sealed)
    devices/<device>/head             the device's head: its last segment's number, its latest
                                      snapshot, each of its files with its SHA-256 and a hash chain
                                      of all it ever sent (sealed, so no one without the key can
                                      write one): how a missing file or an older copy is seen
    devices/<device>/epoch-<n>        a key epoch the device started (epochs.py): JSON, no text

Format 2 (this one) adds the head and the epochs; files of key epoch 0 are sealed as format 1 had
them, so a journal synced before reads on, and an older memoir reads what is still under epoch 0.

Device ids are random; numbers are the device's own counters: no name says anything about the
journal. Each device writes only under its own folder, so two devices never write the same file
(what makes a plain synced folder, which knows nothing of locks, a safe place). A file whose name
fits none of these (and is no upload under way) is foreign: reported, never read.

A segment's or snapshot's payload is ``{"v": 1, "device", "seq", "records": [...], ["frontier"]}``;
a record is one object's whole state as its writer last knew it (records.py), so applying the same
record twice, or two records in either order, gives the same journal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memoir_desktop.core.sync.target import TMP_PREFIX, RemoteFile

VERSION = 1  # of a segment's or snapshot's payload (unchanged in format 2)
ROOT = "devices"
_DEVICE = re.compile(r"^[0-9a-f]{16}$")
_FILE = re.compile(r"^(seg|snap|epoch)-(\d{10})$")


def device_folder(device: str) -> str:
    return f"{ROOT}/{device}"


def key_name(device: str) -> str:
    return f"{ROOT}/{device}/key"


def segment_name(device: str, seq: int) -> str:
    return f"{ROOT}/{device}/seg-{seq:010d}"


def snapshot_name(device: str, seq: int) -> str:
    return f"{ROOT}/{device}/snap-{seq:010d}"


def head_name(device: str) -> str:
    return f"{ROOT}/{device}/head"


def epoch_name(device: str, n: int) -> str:
    return f"{ROOT}/{device}/epoch-{n:010d}"


def is_device_id(text: str) -> bool:
    return bool(_DEVICE.match(text))


@dataclass
class DeviceFiles:
    device: str
    key: bool = False
    segments: dict[int, int] = field(default_factory=dict)  # seq -> size
    snapshots: dict[int, int] = field(default_factory=dict)
    epochs: dict[int, int] = field(default_factory=dict)
    head: bool = False
    tmp: list[str] = field(default_factory=list)  # uploads under way or cut short


@dataclass
class Listing:
    devices: dict[str, DeviceFiles] = field(default_factory=dict)
    foreign: list[str] = field(default_factory=list)


def read_listing(files: list[RemoteFile]) -> Listing:
    out = Listing()
    for f in files:
        parts = f.name.split("/")
        if len(parts) != 3 or parts[0] != ROOT or not is_device_id(parts[1]):
            out.foreign.append(f.name)
            continue
        dev = out.devices.setdefault(parts[1], DeviceFiles(parts[1]))
        name = parts[2]
        if name == "key":
            dev.key = True
        elif name == "head":
            dev.head = True
        elif name.startswith(TMP_PREFIX):
            dev.tmp.append(f.name)
        elif m := _FILE.match(name):
            {"seg": dev.segments, "snap": dev.snapshots, "epoch": dev.epochs}[m.group(1)][int(m.group(2))] = f.size
        else:
            out.foreign.append(f.name)
    return out


def payload(device: str, seq: int, records: list[dict], frontier: dict[str, int] | None = None) -> dict:
    out: dict = {"v": VERSION, "device": device, "seq": seq, "records": records}
    if frontier is not None:
        out["frontier"] = frontier
    return out


def check_payload(data: dict, device: str, seq: int, snapshot: bool) -> str | None:
    """Why a decrypted payload cannot be applied (None when it can)."""
    if data.get("v") != VERSION:
        return f"written by another version of memoir (format {data.get('v')!r})"
    if data.get("device") != device or data.get("seq") != seq:
        return "its contents do not match its name"
    if not isinstance(data.get("records"), list):
        return "it holds no records"
    if snapshot and not isinstance(data.get("frontier"), dict):
        return "a snapshot without its frontier"
    return None
