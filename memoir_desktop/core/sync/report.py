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
class Problem:
    """What a round could not verify or use, and could not fix by itself: a computer's files missing or
    put back to an older copy, a key box that is not this journal's or is damaged. `message` is the
    sentence the diarist reads (which computer, since when, what was and was not done)."""

    device: str
    kind: str  # missing | rolled_back | another_journal | damaged_box
    message: str
    name: str = ""  # the computer's name as it gave it (a screen's own sentence uses it)
    since: str | None = None  # ISO time from which its changes are missing


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
    problems: list[Problem] = field(default_factory=list)
    repaired: int = 0  # files of this computer's the place had lost or changed, sent again
    bytes_up: int = 0
    bytes_down: int = 0
    devices: int = 0  # other computers seen in the target
    snapshot: bool = False  # this round wrote a snapshot (and dropped this device's older files)
    purged: int = 0  # entries deleted forever here because they were on another computer
    taken_over: int = 0  # entries another computer left unread, queued to be read here
    settings_taken: bool = False  # this computer took the journal's AI settings (shared_settings.py)
    started: datetime | None = None
    finished: datetime | None = None

    @property
    def clean(self) -> bool:
        """Nothing skipped, nothing that could not be verified: the journal here is all the place holds."""
        return not self.skipped and not self.problems

    def trouble(self) -> str:
        """One sentence for a round that was not clean (memoir-cli exits non-zero with it; the screens
        show it); "" for a clean one."""
        if self.clean:
            return ""
        parts = []
        if self.problems:
            parts.append(f"{len(self.problems)} problem{'s' * (len(self.problems) != 1)} with the sync place")
        if self.skipped:
            parts.append(f"{len(self.skipped)} file{'s' * (len(self.skipped) != 1)} in it skipped")
        return ("The sync finished, but not everything could be verified: " + " and ".join(parts)
                + ". What could be was synced; nothing was lost here.")

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
        if self.problems:
            parts.append(f"{len(self.problems)} problem{'s' * (len(self.problems) != 1)} found")
        if self.repaired:
            parts.append(f"{self.repaired} file{'s' * (self.repaired != 1)} the place had lost sent again")
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
