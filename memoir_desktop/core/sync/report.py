"""What a sync round tells its caller (the CLI prints it; Settings → Sync and the status bar show it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

# progress(stage, done, total): stage is "look", "upload", "download", "apply" or "index".
Progress = Callable[[str, int, int], None]


@dataclass
class Skipped:
    """A file in the target that was not applied, and why (it is never applied half)."""

    name: str
    kind: str  # damaged | foreign
    reason: str


@dataclass
class Notice:
    """Something the user is told once: an entry edited on two computers (both versions are kept)."""

    id: str
    kind: str  # entry_conflict
    entry_id: int | None
    created_at: str

    @property
    def message(self) -> str:
        return ("An entry was edited on two computers. Both versions are kept: the later one is shown, "
                "the other is in the entry's history.")


@dataclass
class SyncReport:
    url: str
    device: str
    pushed: int = 0  # records this computer sent
    pulled: int = 0  # records from the other computers applied here
    conflicts: list[Notice] = field(default_factory=list)  # told now (and kept until seen)
    skipped: list[Skipped] = field(default_factory=list)
    bytes_up: int = 0
    bytes_down: int = 0
    devices: int = 0  # other computers seen in the target
    snapshot: bool = False  # this round wrote a snapshot (and dropped this device's older files)
    purged: int = 0  # entries deleted forever here because they were on another computer
    started: datetime | None = None
    finished: datetime | None = None

    @property
    def bytes_moved(self) -> int:
        return self.bytes_up + self.bytes_down

    def summary(self) -> str:
        parts = [f"sent {self.pushed} change{'s' * (self.pushed != 1)}",
                 f"received {self.pulled} change{'s' * (self.pulled != 1)}"]
        if self.conflicts:
            parts.append(f"{len(self.conflicts)} entr{'ies were' if len(self.conflicts) != 1 else 'y was'} "
                         "edited on two computers (both versions kept)")
        if self.skipped:
            parts.append(f"{len(self.skipped)} file{'s' * (len(self.skipped) != 1)} in the sync place skipped")
        return "; ".join(parts) + f" ({_size(self.bytes_moved)} moved)"


@dataclass
class SyncStatus:
    url: str
    device: str | None
    last_sync: datetime | None
    notices: list[Notice]


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n}"
