"""The `Sync` part: one journal on every computer, through storage the user already has. A round
(engine.py) reads and writes the journal through what this part holds: the database, the journal's
write lock and its cascade (a purge from another computer runs the journal's own purge), the key, and
the indexes that follow what a round brings in."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from sqlalchemy import text
from sqlmodel import Session, col, select

from memoir_desktop.core import config
from memoir_desktop.core.jobs import queue
from memoir_desktop.core.journal.entries import Journal
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.vault import JournalKey
from memoir_desktop.core.llm import shared_settings
from memoir_desktop.core.storage.models import Entry, Job, pk
from memoir_desktop.core.sync import engine as rounds
from memoir_desktop.core.sync import epochs, errors, guard, hlc, state
from memoir_desktop.core.sync.merge import hlc_of
from memoir_desktop.core.sync.report import Progress, SyncReport, SyncStatus

log = logging.getLogger(__name__)

# How long an entry another computer wrote may stay unread there before a computer with an AI reads it:
# long enough for the computer that wrote it to read it itself when it can (no two computers paying for
# one entry), short enough that an entry written where no AI is set is remembered the same day.
TAKE_OVER_AFTER = timedelta(minutes=10)


class Sync:
    def __init__(self, db_engine, home: Path, *, settings: Callable, keys: JournalKey, journal: Journal, store,
                 episodes, graph_store, llm_ready: Callable[[], bool] = lambda: False,
                 use_settings: Callable[[config.Settings], object] = lambda settings: None):
        self.engine, self.home, self.settings = db_engine, home, settings
        self.keys, self.journal, self.llm_ready, self.use_settings = keys, journal, llm_ready, use_settings
        self.store, self.episodes, self.graph_store = store, episodes, graph_store
        self.last_report: SyncReport | None = None  # the last round's, here (a join's first round too)

    def run(self, url: str | None = None, progress: Progress | None = None) -> SyncReport:
        """One round with `url` (remembered in the settings for the next rounds), or the remembered one.
        Then this computer takes the journal's AI settings when it has none of its own, and, with an AI
        here, the entries another computer left unread are queued to be read here."""
        self.last_report = rounds.run(self, url, progress)
        self.last_report.settings_taken = self.take_settings()
        self.last_report.taken_over = self.take_over_unread()
        return self.last_report

    def take_settings(self) -> bool:
        """The journal's AI settings, used here when this computer has no AI of its own or follows the
        journal's (shared_settings.py). Whether they were taken now."""
        adopted = shared_settings.adopt(self.engine, self.home, self.settings())
        if adopted is None:
            return False
        log.info("this computer takes the journal's AI settings")
        self.use_settings(adopted)
        return True

    def take_over_unread(self) -> int:
        """Entries written on another computer and left unread there for TAKE_OVER_AFTER (that computer has
        no AI, or it cannot reach its own) get a job here, when this computer has an AI: an entry's memories
        are made on whichever computer can make them. The other computer's own job, when it runs, finds
        the entry read (Entry.read_at travels with it) and does nothing. How many were queued."""
        if not self.llm_ready():
            return 0
        with self.engine.connect() as con:
            if not state.exists(con):
                return 0
            me = state.get(con, "device")
            shadows = {int(local): groups for local, groups in con.execute(
                text("SELECT local, groups FROM sync_object WHERE kind = 'entry' AND gone = 0 AND local IS NOT NULL"))}
        cutoff = hlc.wall_ms() - int(TAKE_OVER_AFTER.total_seconds() * 1000)
        queued = 0
        with self.journal.write_lock, Session(self.engine) as s:
            unread = s.exec(select(Entry).where(col(Entry.read_at).is_(None), col(Entry.role) == "user",
                                                col(Entry.kind) == "entry", col(Entry.private).is_(False),
                                                col(Entry.deleted_at).is_(None))).all()
            waiting = {i for j in s.exec(select(Job).where(col(Job.state).in_(("pending", "waiting", "running"))))
                       for i in [*(j.payload or {}).get("entry_ids", []), (j.payload or {}).get("entry_id")]}
            for e in unread:
                written = _written(shadows.get(pk(e)))
                if pk(e) in waiting or written is None or written[1] == me or written[0] > cutoff:
                    continue
                queue.enqueue(s, "reconcile", e.user_id, {"entry_id": pk(e), "why": "unread elsewhere"})
                queued += 1
            s.commit()
        if queued:
            log.info("%d entries another computer left unread are read here", queued)
        return queued

    def use_new_passphrase(self, passphrase: str, url: str | None = None,
                           progress: Progress | None = None) -> SyncReport:
        """The passphrase was changed on another computer (a round raised errors.NewPassphrase): a round that
        opens the new key epoch with it, after which this computer's key file opens with it too. A wrong
        one raises errors.NewPassphrase again, and nothing is changed."""
        self.last_report = rounds.run(self, url, progress, passphrase)
        return self.last_report

    # -- revocation: a new key epoch (epochs.py) ---------------------------------------------------

    def _synced(self) -> bool:
        with self.engine.connect() as con:
            return state.exists(con) and state.get(con, "device") is not None

    def _ask_rotation(self, reason: str, passphrase: str, remove: list[str] | None = None) -> None:
        """A new key epoch, published by the next round: its key made now, wrapped by `passphrase`."""
        key = os.urandom(32)
        state.ensure_schema(self.engine)
        with self.engine.begin() as con:
            before = guard.load(con, "rotate", None) or {}
            drop = sorted(set(before.get("remove", [])) | set(remove or []))
            # A passphrase change asked for meanwhile wins: only this computer keeps the key then.
            why = "passphrase" if "passphrase" in (reason, before.get("reason")) else reason
            guard.save(con, "rotate", {"reason": why, "key": epochs.b64(key), "remove": drop,
                                       "pslot": epochs.passphrase_slot(passphrase, key)})

    def passphrase_changed(self, new: str) -> None:
        """The passphrase was changed here: the next round starts a key epoch that only this computer
        and the new passphrase open, and removes the key boxes kept under the old one. A lost computer
        (which knows only the old passphrase, or none) reads nothing written after; the others go on once
        the new passphrase is typed on them."""
        if self._synced():
            self._ask_rotation("passphrase", new)

    def remove_computer(self, device: str, passphrase: str, progress: Progress | None = None) -> SyncReport:
        """Shut `device` (an id of computers()) out of the journal: a new key epoch wrapped for every other
        computer and the passphrase, published by a round run now; that computer's key box is removed and
        its files after what was merged are not taken. It keeps what it had downloaded. Needs the
        passphrase (crypto.WrongPassphrase otherwise): it wraps the new key for the next computer to join."""
        if not self.keys.check_passphrase(passphrase):
            raise crypto.WrongPassphrase("That passphrase does not open this journal. Nothing was changed.", "wrong")
        known = {c["id"]: c for c in self.computers()}
        found = [d for d in known if d == device or (len(device) >= 4 and d.startswith(device))]
        if len(found) != 1 or known[found[0]]["this"]:
            raise errors.CannotSync(f"No other computer of this journal is known by {device!r}: see the list of "
                                    "computers (memoir-cli computers).", code="no_such_computer")
        self._ask_rotation("removed", passphrase, [found[0]])
        return self.run(progress=progress)

    def computers(self) -> list[dict]:
        """The computers this one knows share the journal (from what rounds saw), this one first: id, name,
        when it last sent something, whether it is this one, whether it was removed."""
        with self.engine.connect() as con:
            if not state.exists(con):
                return []
            me = state.get(con, "device")
            seen = guard.load(con, "heads_seen", {})
            pins = guard.load(con, "pins", {})
            removed = guard.load(con, "removed", {})
            ok = set(guard.load(con, "boxes_ok", []))
            pending = guard.load(con, "rotate", None) or {}
            last = con.execute(text("SELECT value FROM sync_state WHERE key = 'last_sync'")).scalar()
        out = []
        if me:
            out.append({"id": me, "name": guard.computer_name(), "this": True, "removed": False, "last": last})
        for dev in sorted(set(seen) | set(pins) | ok | set(removed)):
            if dev == me:
                continue
            info = seen.get(dev, {})
            out.append({"id": dev, "name": info.get("name") or "a computer", "this": False,
                        "removed": dev in removed or dev in pending.get("remove", []), "last": info.get("at")})
        return out

    def status(self) -> SyncStatus:
        return rounds.status(self)

    def dismiss(self, notice_id: str) -> None:
        """The user has seen a notice: it is not shown again."""
        rounds.dismiss(self, notice_id)


def _written(groups: str | None) -> tuple[int, str] | None:
    """(when, which computer) the entry's text was last written, from its sync shadow's stamp."""
    if not groups:
        return None
    stamped = json.loads(groups).get("stamps", {}).get("content")
    if not stamped:
        return None
    ms, _counter, device = hlc.parse(hlc_of(stamped))
    return ms, device
