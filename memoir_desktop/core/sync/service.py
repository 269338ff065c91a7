"""The `Sync` part: one journal on every computer, through storage the user already has. A round
(engine.py) reads and writes the journal through what this part holds: the database, the journal's
write lock and its cascade (a purge from another computer runs the journal's own purge), the key, and
the indexes that follow what a round brings in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memoir_desktop.core.journal.entries import Journal
from memoir_desktop.core.keys.vault import JournalKey
from memoir_desktop.core.sync import engine as rounds
from memoir_desktop.core.sync.report import Progress, SyncReport, SyncStatus


class Sync:
    def __init__(self, db_engine, home: Path, *, settings: Callable, keys: JournalKey, journal: Journal, store,
                 episodes, graph_store):
        self.engine, self.home, self.settings = db_engine, home, settings
        self.keys, self.journal = keys, journal
        self.store, self.episodes, self.graph_store = store, episodes, graph_store

    def run(self, url: str | None = None, progress: Progress | None = None) -> SyncReport:
        """One round with `url` (remembered in the settings for the next rounds), or the remembered one."""
        return rounds.run(self, url, progress)

    def status(self) -> SyncStatus:
        return rounds.status(self)

    def dismiss(self, notice_id: str) -> None:
        """The user has seen a notice: it is not shown again."""
        rounds.dismiss(self, notice_id)
