"""One sync round, and joining a journal from another computer.

A round (every step commits or uploads whole; a kill or a broken connection anywhere loses nothing,
and the next round takes up where this one stopped):

1. *look*: list the target; every other device's lock box must keep this journal's key (else the
   place holds another journal and nothing is written); this device's own lock box is written
   when missing or when the passphrase changed.
2. *capture*: the objects the change feed names since the last round (all of them the first time,
   or when the feed was trimmed past us) are read as records; those whose state differs from their
   shadow are stamped by the device's hybrid logical clock, sealed into a segment in the outbox,
   and their shadows moved, all in one transaction.
3. *upload* the outbox, oldest first; each segment leaves the outbox once the target has it whole.
4. *download and apply* every other device's segments not applied here yet (or its latest snapshot,
   when the segments before it were compacted away), each file in one transaction that also marks it
   applied. A damaged or foreign file is skipped and reported, never applied. Purges run after.
5. capture and upload again (what merging changed here), and write a snapshot when one is due (many
   segments since the last, a first large upload, or a purge: the snapshot no longer holds the purged
   text, and this device's older files, which did, are deleted).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import platformdirs
from sqlalchemy import text
from sqlmodel import Session, col, select

from memoir_desktop.core import config
from memoir_desktop.core.db import origin_of
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.llm import shared_settings
from memoir_desktop.core.storage.graph_store import GraphEdge, GraphNode
from memoir_desktop.core.storage.models import Entry, History, Memory, MemorySource, new_uid, now
from memoir_desktop.core.sync import epochs, errors, guard, hlc, log_format, records, sealing, state
from memoir_desktop.core.sync.apply import Applied, Applier
from memoir_desktop.core.sync.merge import hlc_of, rank_of, stamp
from memoir_desktop.core.sync.report import Notice, Progress, Skipped, SyncReport, SyncStatus
from memoir_desktop.core.sync.target import Target, describe, open_target
from memoir_desktop.core.sync.trust_steps import ANOTHER_JOURNAL, TrustSteps, named

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 50  # segments of this device since its last snapshot
SNAPSHOT_FIRST = 2_000  # records in one capture: written as a snapshot rather than a segment
FED_TABLES = ("entry", "memory", "graph_node", "graph_edge")


class Round(TrustSteps):
    def __init__(self, part, target: Target, progress: Progress | None = None, passphrase: str | None = None):
        self.part = part  # the journal's Sync part (service.py): what a round reads and writes
        self.engine = part.engine
        self.target = target
        self.progress = progress or (lambda stage, done, total: None)
        self.lock = part.journal.write_lock
        if part.keys.data_key is None or part.keys.key_file is None:
            raise errors.CannotSync("Only an encrypted journal can be synced: encrypt it first (memoir-cli encrypt).")
        if not part.keys.key_file.has_passphrase:
            raise errors.CannotSync("Sync needs the journal to have a passphrase: it is how your other computers "
                                    "open it. Set one first (memoir-cli passphrase).")
        # A new passphrase the diarist typed here: it opens a key epoch started on another computer
        # after a passphrase change (epochs.py). Never stored.
        self.passphrase = passphrase
        state.ensure_schema(self.engine)
        self.device = state.device_id(self.engine)
        with self.engine.begin() as con:
            self.clock = hlc.Clock(self.device, state.get(con, "hlc"))
            self.keys: dict[int, bytes] = {0: sealing.sync_key(part.keys.data_key)}
            self.keys.update({int(n): epochs.unb64(k) for n, k in guard.load(con, "epochs", {}).items()})
            private = state.get(con, "device_key")
            if private is None:  # this computer's key pair, to which a new key epoch is wrapped
                private = epochs.b64(epochs.new_device_key())
                state.put(con, "device_key", private)
        self.private = epochs.unb64(private)
        self.epoch = max(self.keys)
        self.key = self.keys[self.epoch]  # every file this round writes is sealed under the newest epoch
        self.report = SyncReport(url=target.url, device=self.device, started=now())
        self.snapshot_due = False
        self.repair = False  # the place lost or changed a file of ours: a snapshot sends it all again
        self.isolated: set[str] = set()  # computers whose files are left aside (a foreign or damaged box)
        self.head_stale = True  # our head in the place is missing or not the one we wrote (_verify_own)
        self._told: set[str] = set()
        self._ids: state.Objects | None = None

    def _objects(self, con) -> state.Objects:
        """The id pairs and shadows, read once a round (a ten-year journal has ~100k) and kept in step:
        every change to them goes through this object and is flushed in the transaction that made it
        (a transaction that fails ends the round, and the next round reads them afresh)."""
        if self._ids is None:
            self._ids = state.Objects(con, self.device)
        self._ids.con = con
        return self._ids

    # -- the round -------------------------------------------------------------------------

    def run(self) -> SyncReport:
        self.progress("look", 0, 1)
        listing = log_format.read_listing(self.target.list(""))
        self._learn_epochs(listing)
        if self._publish_rotation(listing):
            listing = log_format.read_listing(self.target.list(""))
        self._check_boxes(listing)
        self._write_box(listing)
        for tmp in listing.devices.get(self.device, log_format.DeviceFiles(self.device)).tmp:
            self.target.delete(tmp)  # an upload of ours cut short
        self.report.skipped += [Skipped(n, "foreign", "not a file memoir writes") for n in listing.foreign]
        self._verify_own(listing)
        self.progress("look", 1, 1)
        self._purge_pending()
        with self.lock, Session(self.engine) as s:
            self._capture(s)
            s.commit()
        self._upload()
        self._pull(listing)
        self._purge_pending()
        with self.lock, Session(self.engine) as s:
            self._capture(s)  # what merging changed here, for the others to converge on
            due = self._snapshot_due(s) or self.repair
            if due:
                self._snapshot(s)
            s.commit()
        self._upload()
        self._compact()
        self._write_head(listing)
        self.report.bytes_up, self.report.bytes_down = self.target.bytes_up, self.target.bytes_down
        self.report.finished = now()
        with self.engine.begin() as con:
            state.put(con, "hlc", self.clock.last)
            state.put(con, "last_sync", self.report.finished.isoformat())
            state.put(con, "url", self.target.url)
        self.report.conflicts = [n for n in notices(self.engine) if n.id in self._told]
        return self.report

    # -- capture ------------------------------------------------------------------------------

    def _capture(self, s: Session) -> int:
        """Local changes since the last capture into one sealed segment in the outbox."""
        con = s.connection()
        cursor = state.get(con, "feed_cursor")
        top = int(con.execute(text("SELECT COALESCE(MAX(seq), 0) FROM change_feed")).scalar() or 0)
        low = con.execute(text("SELECT MIN(seq) FROM change_feed")).scalar()
        full = cursor is None or (low is not None and int(low) > int(cursor) + 1)
        ids = self._objects(con)
        ids.minted = set()
        cand: dict[str, set[str]] = {t: set() for t in FED_TABLES}
        if not full:
            for tbl, item in con.execute(text("SELECT tbl, item FROM change_feed WHERE seq > :c AND seq <= :t "
                                              "AND tbl IN ('entry', 'memory', 'graph_node', 'graph_edge')"),
                                         {"c": int(cursor or 0), "t": top}):
                cand[tbl].add(str(item))
        for (kind, gid), (_h, _g, push, gone) in ids.shadow.items():
            if push and not gone and kind != "prefs":
                local = ids.local_of(kind, gid)
                if local is not None:
                    cand[{"entry": "entry", "memory": "memory"}.get(kind, "graph_node")].add(
                        local if kind in ("entry", "memory") else self._graph_user(s, kind, local) or "")
        out: list[dict] = []
        uuids = records.entry_uuids(s)
        out += self._capture_entries(s, ids, uuids, None if full else cand["entry"])
        out += self._capture_memories(s, ids, uuids, None if full else cand["memory"])
        out += self._capture_graph(s, ids, uuids, None if full else cand["graph_node"] | cand["graph_edge"])
        out += self._capture_prefs(s, ids)
        ids.flush()
        state.put(con, "feed_cursor", top)
        if not out:
            return 0
        seq = int(state.get(con, "seq") or 0) + 1
        state.put(con, "seq", seq)
        if len(out) >= SNAPSHOT_FIRST:
            self._snapshot(s, ids=ids)  # no segment holds these: the snapshot takes its number
        else:
            name = log_format.segment_name(self.device, seq)
            body = sealing.seal(self.key, name, log_format.payload(self.device, seq, out), self.epoch)
            con.execute(text("INSERT INTO sync_outbox (seq, body, snapshot) VALUES (:s, :b, 0)"), {"s": seq, "b": body})
            state.put(con, "since_snapshot", int(state.get(con, "since_snapshot") or 0) + 1)
        state.put(con, "hlc", self.clock.last)
        self.report.pushed += len(out)
        return len(out)

    @staticmethod
    def _graph_user(s: Session, kind: str, local: str) -> str | None:
        row = s.get(GraphNode if kind == "node" else GraphEdge, int(local))
        return row.user_id if row is not None else None

    def _stamped(self, rec: dict, ids: state.Objects, ranks: dict[str, int] | None = None) -> dict | None:
        """The record with its stamps, when it differs from its shadow (None when it does not)."""
        h = records.state_hash(rec)
        shadow = ids.shadow.get((rec["t"], rec["id"]))
        if shadow is not None and shadow[0] == h and not shadow[2]:
            return None
        old = shadow[1] if shadow else {}
        old_stamps, old_groups = old.get("stamps", {}), old.get("groups", {})
        groups = records.group_hashes(rec)
        acted = records.touched_groups(rec, ids.minted)
        stamps = {}
        at = None
        for g, gh in groups.items():
            if g in old_stamps and old_groups.get(g) == gh and g not in acted:
                stamps[g] = old_stamps[g]
            else:
                at = at or self.clock.now()
                rank = max((ranks or {}).get(g, 1 if rec["t"] == "entry" else 0), rank_of(old_stamps.get(g)))
                stamps[g] = stamp(rank, at)
        rec["stamps"] = stamps
        ids.set_shadow(rec["t"], rec["id"], h, {"stamps": stamps, "groups": groups}, local=rec.pop("_local"))
        return rec

    def _capture_entries(self, s: Session, ids: state.Objects, uuids: dict[int, str], only: set[str] | None) -> list[dict]:
        q = select(Entry)
        if only is not None:
            wanted = [int(i) for i in only if i.isdigit()]
            if not wanted:
                return self._gone_since(s, ids, "entry", set(), only)
            q = q.where(col(Entry.id).in_(wanted))
        out, seen = [], set()
        for e in s.exec(q):
            if not e.uuid:  # a row written by something that did not give it one
                e.uuid = new_uid()
                s.add(e)
                s.flush()
                uuids[e.id] = e.uuid  # type: ignore[index]
            seen.add(str(e.id))
            r = records.entry_record(s, e, ids, uuids)
            r["_local"] = e.id
            stamped = self._stamped(r, ids)
            if stamped is not None:
                out.append(stamped)
        return out + self._gone_since(s, ids, "entry", seen, only)

    def _capture_memories(self, s: Session, ids: state.Objects, uuids: dict[int, str], only: set[str] | None) -> list[dict]:
        q = select(Memory)
        if only is not None:
            if not only:
                return []
            q = q.where(col(Memory.id).in_(list(only)))
        rows = list(s.exec(q))
        hist: dict[str, list[History]] = {}
        srcs: dict[str, list[MemorySource]] = {}
        mids = [m.id for m in rows]
        for at in range(0, len(mids), 900):
            part = mids[at:at + 900]
            for h in s.exec(select(History).where(col(History.memory_id).in_(part)).order_by(col(History.id))):
                hist.setdefault(h.memory_id, []).append(h)
            for x in s.exec(select(MemorySource).where(col(MemorySource.memory_id).in_(part))):
                srcs.setdefault(x.memory_id, []).append(x)
        out, seen = [], set()
        for m in rows:
            seen.add(m.id)
            r = records.memory_record(s, m, ids, uuids, hist.get(m.id, []), srcs.get(m.id, []))
            r["_local"] = m.id
            stamped = self._stamped(r, ids, records.memory_ranks(r))
            if stamped is not None:
                out.append(stamped)
        return out + self._gone_since(s, ids, "memory", seen, only)

    def _capture_graph(self, s: Session, ids: state.Objects, uuids: dict[int, str], users: set[str] | None) -> list[dict]:
        if users is not None and not users:
            return []
        nq, eq = select(GraphNode), select(GraphEdge)
        if users is not None:
            nq = nq.where(col(GraphNode.user_id).in_(list(users)))
            eq = eq.where(col(GraphEdge.user_id).in_(list(users)))
        out = []
        seen: dict[str, set[str]] = {"node": set(), "edge": set()}
        for n in s.exec(nq):
            seen["node"].add(str(n.id))
            r = records.node_record(n, ids, uuids)
            r["_local"] = n.id
            if (st := self._stamped(r, ids)) is not None:
                out.append(st)
        for e in s.exec(eq):
            seen["edge"].add(str(e.id))
            r = records.edge_record(e, ids, uuids)
            r["_local"] = e.id
            if (st := self._stamped(r, ids)) is not None:
                out.append(st)
        # Deleted forever here (a purge): nodes and edges of these users no longer in the database.
        for kind in ("edge", "node"):
            table = GraphEdge if kind == "edge" else GraphNode
            for (k, gid), (_h, _g, _p, gone) in list(ids.shadow.items()):
                local = ids.local_of(k, gid)
                if k != kind or gone or local is None or local in seen[kind]:
                    continue
                if users is not None:
                    row = s.get(table, int(local))
                    if row is not None:
                        continue
                out.append(self._tombstone(ids, kind, gid))
        return out

    def _capture_prefs(self, s: Session, ids: state.Objects) -> list[dict]:
        """The journal's AI settings (shared_settings.py), when they changed here since the last capture."""
        values = shared_settings.read(s)
        if values is None:
            return []
        r = records.prefs_record(values)
        r["_local"] = shared_settings.GID
        stamped = self._stamped(r, ids, {"all": 1})
        return [stamped] if stamped is not None else []

    def _gone_since(self, s: Session, ids: state.Objects, kind: str, seen: set[str], only: set[str] | None) -> list[dict]:
        """Objects with a shadow that are no longer in the database: deleted forever here."""
        out = []
        pool = only if only is not None else {ids.local_of(kind, g) for (k, g) in ids.shadow if k == kind}
        for local in pool:
            if local is None or local in seen:
                continue
            gid = ids.gid_of(kind, local, mint=False)
            if gid is None:
                continue
            shadow = ids.shadow.get((kind, gid))
            if shadow is None or shadow[3]:
                continue
            if kind == "entry" and s.get(Entry, int(local)) is not None:
                continue
            if kind == "memory" and s.get(Memory, local) is not None:
                continue
            out.append(self._tombstone(ids, kind, gid))
        return out

    def _tombstone(self, ids: state.Objects, kind: str, gid: str) -> dict:
        ids.set_shadow(kind, gid, None, {}, gone=True)
        self.snapshot_due = True  # the target should stop holding what was deleted forever
        r = records.tombstone(kind, gid)
        r["stamps"] = {"gone": stamp(1, self.clock.now())}
        return r

    # -- upload ---------------------------------------------------------------------------------

    def _upload(self) -> None:
        with self.engine.connect() as con:
            waiting = [(int(seq), bool(snap)) for seq, snap in
                       con.execute(text("SELECT seq, snapshot FROM sync_outbox ORDER BY seq"))]
        for done, (seq, snap) in enumerate(waiting):
            self.progress("upload", done, len(waiting))
            with self.engine.connect() as con:
                body = con.execute(text("SELECT body FROM sync_outbox WHERE seq = :s"), {"s": seq}).scalar()
            name = (log_format.snapshot_name if snap else log_format.segment_name)(self.device, seq)
            self.target.put(name, bytes(body))
            with self.engine.begin() as con:
                con.execute(text("DELETE FROM sync_outbox WHERE seq = :s"), {"s": seq})
                if snap:
                    state.put(con, "snapshot", seq)
                self._sent(con, name, bytes(body))
        self.progress("upload", len(waiting), len(waiting))

    # -- download and apply ----------------------------------------------------------------------

    # Long on purpose: one pass over the other computers' segments in one connection, where the gap,
    # damage and rollback checks share what was seen.
    def _pull(self, listing: log_format.Listing) -> None:
        others = {d: f for d, f in listing.devices.items() if d != self.device and d not in self.isolated}
        self.report.devices = len([d for d in listing.devices if d != self.device])
        with self.engine.connect() as con:
            have = state.applied(con)
            seen = guard.load(con, "heads_seen", {})
            removed = guard.load(con, "removed", {})
        for dev in self.isolated & set(removed):  # a removed computer: what it had sent before is taken
            if dev in listing.devices:
                others[dev] = listing.devices[dev]
        # The device whose latest snapshot covers most goes first: a joining computer then reads one
        # snapshot and the segments after it, not every device's whole journal.
        order = sorted(others, key=lambda d: -(max(others[d].snapshots) if others[d].snapshots else 0))
        work: list[tuple[str, int, bool]] = []
        cut: dict[str, int] = {}  # device -> the first of its changes not to merge (a gap, a damaged file)
        expected: dict[str, dict[str, list]] = {}  # device -> its head's files and their hashes
        head_epoch: dict[str, int] = {}  # device -> the key epoch its head is sealed under
        for dev in order:
            files = others[dev]
            upto = removed.get(dev, {}).get("upto") if dev in removed else None
            head = self._head(dev, files)
            name = named(dev, head, seen.get(dev))
            if head is not None:
                problem = guard.regression(head, seen.get(dev))
                if problem is not None:
                    problem.message = problem.message.replace(head.name, name)
                    problem.name = name
                    self.report.problems.append(problem)
                    continue  # nothing from a computer whose files went back in time
                expected[dev] = head.files
                head_epoch[dev] = head.epoch
            segs = sorted(n for n in files.segments if upto is None or n <= upto)
            snaps = [n for n in files.snapshots if upto is None or n <= upto]
            mine = have.get(dev, set())
            top = max(snaps) if snaps else 0
            if top and top not in mine:
                # Read when it is newer than what is here: it replaces the segments before it (which
                # may be gone) and may hold changes no segment has (a first, large round).
                work.append((dev, top, True))
            base = max(state.upto(mine), top)
            nxt, missing = base + 1, None
            for n in segs:
                if n <= base or n in mine:
                    continue
                if missing is None and n != nxt:
                    missing = nxt
                if missing is None:
                    nxt = n + 1
                work.append((dev, n, False))
            claimed = head.seq if head is not None and upto is None else 0
            if missing is None and claimed >= nxt:
                missing = nxt  # the head says there is more than the place holds
            if missing is not None:
                since = (head.files.get(f"seg-{missing:010d}") or [None, None])[1] if head else None
                if since is None and head is not None:
                    since = head.at
                self.report.problems.append(guard.gap(dev, name, missing, claimed or None, since))
                cut[dev] = missing
            if head is not None:
                seen[dev] = {"seq": head.seq, "chain": head.chain, "at": head.at, "name": head.name,
                             "epoch": head.epoch}
        with self.engine.begin() as con:
            guard.save(con, "heads_seen", seen)
        total = len(work)
        for done, (dev, seq, snap) in enumerate(work):
            self.progress("download", done, total)
            with self.engine.connect() as con:
                if seq in state.applied(con).get(dev, set()):
                    continue  # a snapshot applied meanwhile covered it
            name = (log_format.snapshot_name if snap else log_format.segment_name)(dev, seq)
            try:
                blob = self.target.read(name)
                want = expected.get(dev, {}).get(name.rsplit("/", 1)[-1])
                if want is not None and guard.sha(blob) != want[0]:
                    raise sealing.Unreadable("it is not the file its computer sent (its hash differs)", "damaged")
                data = sealing.unseal(self.keys, name, blob)
                why = log_format.check_payload(data, dev, seq, snap)
                if why is not None:
                    raise sealing.Unreadable(why, "damaged")
            except FileNotFoundError:
                continue  # compacted away since the listing: the snapshot that replaced it comes next round
            except sealing.Unreadable as exc:
                self.report.skipped.append(Skipped(name, exc.kind, str(exc)))
                cut[dev] = min(cut.get(dev, seq), 0 if snap else seq)  # nothing of it past what failed
                continue
            if not snap and dev in cut and seq >= cut[dev]:
                continue  # read to report it whole, not merged: a change before it is missing
            if dev in expected and name.rsplit("/", 1)[-1] not in expected[dev] \
                    and (sealing.epoch_of(blob) or 0) < head_epoch[dev]:
                # Not named by its computer's head (a round cut before it wrote one is named next time) and
                # sealed under an older key than that head: written by someone who holds only an older key
                # (a removed computer), not by that computer now.
                self.report.skipped.append(Skipped(name, "damaged", "sealed under an older key than its computer "
                                                                    "uses now: not written by it"))
                cut[dev] = min(cut.get(dev, seq), 0 if snap else seq)
                continue
            if snap and dev in cut and cut[dev] == 0:
                continue
            self._apply_file(dev, seq, data, snap)
        self.progress("download", total, total)

    def _apply_file(self, dev: str, seq: int, data: dict, snap: bool) -> None:
        recs = [r for r in data["records"] if isinstance(r, dict) and "t" in r and "id" in r]
        for r in recs:
            for st in (r.get("stamps") or {}).values():
                if isinstance(st, str) and "|" in st and hlc.is_stamp(hlc_of(st)):
                    self.clock.observe(hlc_of(st))
        self.progress("apply", 0, len(recs))
        with self.lock, Session(self.engine) as s:
            self._capture(s)  # a change made here since the round began is stamped before it is merged
            con = s.connection()
            before = int(state.get(con, "feed_cursor") or 0)
            ids = self._objects(con)
            applier = Applier(s, ids, self.part.journal.ctx, now().isoformat())
            done = applier.apply(recs)
            ids.flush()
            if snap:
                state.mark_applied(con, dev, range(1, seq + 1))
                for other, upto in (data.get("frontier") or {}).items():
                    if other != self.device and log_format.is_device_id(other) and isinstance(upto, int):
                        state.mark_applied(con, other, range(1, upto + 1))
            else:
                state.mark_applied(con, dev, [seq])
            if done.purge:
                pending = json.loads(state.get(con, "purge") or "[]")
                state.put(con, "purge", json.dumps(pending + [[eid, gid] for eid, gid in done.purge]))
            # The feed rows this batch wrote are no local change (what its cascade did is marked to
            # be sent): passed over, unless another program wrote meanwhile (then the capture reads them all).
            top = int(con.execute(text("SELECT COALESCE(MAX(seq), 0) FROM change_feed")).scalar() or 0)
            others = con.execute(text("SELECT COUNT(*) FROM change_feed WHERE seq > :b AND origin != :me"),
                                 {"b": before, "me": origin_of(self.engine)}).scalar()
            if not others:
                state.put(con, "feed_cursor", top)
            state.put(con, "hlc", self.clock.last)
            s.commit()
        self.report.pulled += done.changed
        self._told |= {c["notice"] for c in done.conflicts}
        self.progress("apply", len(recs), len(recs))
        self._follow(done)

    def _follow(self, done: Applied) -> None:
        """The derived indexes after a batch (what fails here is repaired by reconcile: index_pending)."""
        part = self.part
        try:
            for user_id, ids in done.entries_index.items():
                with Session(self.engine) as s:
                    rows = list(s.exec(select(Entry).where(col(Entry.id).in_(list(ids)),
                                                           col(Entry.deleted_at).is_(None))))
                self.progress("index", 0, len(rows))
                part.episodes.index(user_id, rows)
            for user_id, ids in done.entries_unindex.items():
                part.episodes.remove(user_id, list(ids))
            for user_id, change in done.memory_changes.items():
                self.progress("index", 0, len(change.upsert))
                part.store.apply_index(user_id, change)
            for user_id in done.graph_users:
                part.graph_store.invalidate_cache(user_id)
        except Exception as exc:
            log.warning("the search index did not follow a sync (%s); reconcile will", exc.__class__.__name__)

    def _purge_pending(self) -> None:
        """Entries deleted forever on another computer: through the journal's own purge here."""
        with self.engine.connect() as con:
            pending = json.loads(state.get(con, "purge") or "[]")
        for eid, gid in pending:
            try:
                self.part.journal.purge(int(eid))
            except Exception as exc:  # already gone (a kill after the purge, before this was cleared)
                log.info("a synced purge found nothing to do (%s)", exc.__class__.__name__)
            with self.lock, Session(self.engine) as s:
                con = s.connection()
                ids = self._objects(con)
                ids.set_shadow("entry", gid, None, {}, gone=True)
                ids.flush()
                con.execute(text("DELETE FROM sync_notice WHERE entry_uuid = :u"), {"u": gid})
                left = [p for p in json.loads(state.get(con, "purge") or "[]") if p != [eid, gid]]
                state.put(con, "purge", json.dumps(left))
                s.commit()
            self.report.purged += 1
            self.snapshot_due = True

    # -- snapshots ------------------------------------------------------------------------------

    def _snapshot_due(self, s: Session) -> bool:
        con = s.connection()
        if self.snapshot_due:
            return True
        return int(state.get(con, "since_snapshot") or 0) >= SNAPSHOT_EVERY

    def _snapshot(self, s: Session, ids: state.Objects | None = None) -> None:
        """The whole journal as this device has it, as one sealed file in the outbox, under the number
        of this device's latest segment: a device that has that segment already has all of it."""
        con = s.connection()
        seq = int(state.get(con, "seq") or 0)
        if seq == 0:
            return  # this device never wrote anything: it has nothing of its own to compact
        if self.repair:
            # A number no file had: the others see a head past the one they saw, and take this snapshot
            # for what the place lost (a snapshot under a number they applied would be passed over).
            seq += 1
            state.put(con, "seq", seq)
            self.repair = False
        ids = ids or self._objects(con)
        uuids = records.entry_uuids(s)
        recs: list[dict] = []
        for (kind, gid), (_h, _groups, _push, gone) in ids.shadow.items():
            if gone:
                r = records.tombstone(kind, gid)
                r["stamps"] = {"gone": stamp(1, self.clock.last)}
                recs.append(r)
        for e in s.exec(select(Entry)):
            recs.append(self._with_stamps(records.entry_record(s, e, ids, uuids), ids))
        hist: dict[str, list[History]] = {}
        for h in s.exec(select(History).order_by(col(History.id))):
            hist.setdefault(h.memory_id, []).append(h)
        srcs: dict[str, list[MemorySource]] = {}
        for x in s.exec(select(MemorySource)):
            srcs.setdefault(x.memory_id, []).append(x)
        for m in s.exec(select(Memory)):
            recs.append(self._with_stamps(records.memory_record(s, m, ids, uuids, hist.get(m.id, []),
                                                                srcs.get(m.id, [])), ids))
        for n in s.exec(select(GraphNode)):
            recs.append(self._with_stamps(records.node_record(n, ids, uuids), ids))
        for e in s.exec(select(GraphEdge)):
            recs.append(self._with_stamps(records.edge_record(e, ids, uuids), ids))
        if (values := shared_settings.read(s)) is not None:
            recs.append(self._with_stamps(records.prefs_record(values), ids))
        applied = state.applied(con)
        frontier = {dev: state.upto(seqs) for dev, seqs in applied.items()}
        frontier[self.device] = seq
        name = log_format.snapshot_name(self.device, seq)
        body = sealing.seal(self.key, name, log_format.payload(self.device, seq, recs, frontier), self.epoch)
        # An unsent segment or snapshot is in this one: the outbox keeps only it.
        con.execute(text("DELETE FROM sync_outbox"))
        con.execute(text("INSERT INTO sync_outbox (seq, body, snapshot) VALUES (:s, :b, 1)"), {"s": seq, "b": body})
        state.put(con, "since_snapshot", 0)
        self.report.snapshot = True
        self.snapshot_due = False

    @staticmethod
    def _with_stamps(rec: dict, ids: state.Objects) -> dict:
        shadow = ids.shadow.get((rec["t"], rec["id"]))
        rec["stamps"] = shadow[1].get("stamps", {}) if shadow else {}
        return rec

    def _compact(self) -> None:
        """This device's files older than its latest snapshot (which holds all they held) go."""
        with self.engine.connect() as con:
            snap = state.get(con, "snapshot")
        if snap is None:
            return
        snap = int(snap)
        listing = log_format.read_listing(self.target.list(log_format.device_folder(self.device)))
        mine = listing.devices.get(self.device)
        if mine is None:
            return
        gone = [log_format.segment_name(self.device, seq) for seq in sorted(mine.segments)
                if seq <= snap]  # the snapshot holds its own number's segment too
        gone += [log_format.snapshot_name(self.device, seq) for seq in sorted(mine.snapshots) if seq < snap]
        for name in gone:
            self.target.delete(name)
        with self.engine.begin() as con:
            sent = guard.load(con, "uploaded", {})
            for name in list(sent):
                m = log_format._FILE.match(name.rsplit("/", 1)[-1])
                if m and m.group(1) in ("seg", "snap") and (int(m.group(2)) < snap or (
                        m.group(1) == "seg" and int(m.group(2)) == snap)):
                    sent.pop(name)
            guard.save(con, "uploaded", sent)


# -- the facade's entry points ----------------------------------------------------------------------

def run(part, url: str | None = None, progress: Progress | None = None, passphrase: str | None = None) -> SyncReport:
    """One round with `url` (remembered in the settings for the next rounds), or the remembered one.
    `passphrase`: a new one the diarist typed here, after it was changed on another computer."""
    settings = part.settings()
    url = url or settings.sync_url
    if not url:
        raise errors.CannotSync("No sync place is set yet: give one the first time (memoir-cli sync URL).")
    target = open_target(url)
    try:
        report = Round(part, target, progress, passphrase).run()
    finally:
        target.close()
    if describe(url) != settings.sync_url:
        on_disk = config.load_settings(part.home, apply_env=False)
        on_disk.sync_url = settings.sync_url = describe(url)
        config.save_settings(part.home, on_disk)
    return report


@dataclass
class Opened:
    """A journal's key, taken from a sync place with its passphrase: what joining it needs. Getting it
    wrote nothing, here or there."""

    url: str
    passphrase: str
    data_key: bytes = field(repr=False)
    recovery: dict | None = field(default=None, repr=False)  # the recovery key's slot: the same key opens it
    epochs: dict[int, bytes] = field(default_factory=dict, repr=False)  # the key epochs the passphrase opened


def _open_place(url: str):
    """The target at `url` for reading, a folder that cannot be made said in words."""
    try:
        return open_target(url)
    except OSError as exc:  # a folder that cannot be made: a file in the way, no permission, a drive gone
        raise errors.CannotSync("That folder cannot be made or opened: choose another one.") from exc


def _key_boxes(target, listing):
    """Each computer's key box there that can be read, read when asked for. One that cannot is passed
    over: a round reports it, and it does not make the place unusable."""
    for dev, files in listing.devices.items():
        if files.key:
            try:
                yield sealing.read_box(target.read(log_format.key_name(dev)))
            except sealing.Unreadable:
                continue


def open_place(url: str, passphrase: str) -> Opened:
    """The key of the journal kept at `url`, unlocked with its passphrase, without writing anywhere (only a
    missing folder is made, as check() makes it). Raises errors.WrongPassphrase, errors.CannotSync with the
    code "nothing_there" (no journal is kept there yet) or "recovery_key" (the recovery key was given: it
    opens the journal, but this computer needs the passphrase to keep it), or the target's errors."""
    target = _open_place(url)
    try:
        boxes = list(_key_boxes(target, log_format.read_listing(target.list(log_format.ROOT))))
        if not boxes:
            raise errors.CannotSync("No journal is kept in that sync place yet: sync it from the computer that "
                                    "has it first.", code="nothing_there")
        unlocked = None
        for box in boxes:
            try:
                unlocked = box.unlock_secret(passphrase)
                break
            except crypto.WrongPassphrase:
                continue
        if unlocked is None:
            raise errors.WrongPassphrase("That passphrase does not open the journal in this sync place. "
                                         "Nothing was changed, here or there.")
    finally:
        target.close()
    if unlocked.via != "passphrase":
        raise errors.CannotSync("Join with the journal's passphrase (the recovery key opens it, but this computer "
                                "needs a passphrase to keep it).", code="recovery_key")
    keys = _current_keys(url, passphrase)
    recovery = next((b.data.get("recovery") for b in boxes if b.data.get("verifier") == crypto.verifier(unlocked.data_key)
                     and b.data.get("recovery")), None)
    return Opened(url, passphrase, unlocked.data_key, recovery, keys)


def _current_keys(url: str, passphrase: str) -> dict[int, bytes]:
    """The key epochs of the journal kept at `url` that `passphrase` opens: the newest must open, or the
    passphrase is an old one (changed since) and opens nothing written after. Writes nothing."""
    target = _open_place(url)
    try:
        listing = log_format.read_listing(target.list(log_format.ROOT))
        found = sorted(((n, dev) for dev, files in listing.devices.items() for n in files.epochs), reverse=True)
        for n, dev in found:
            try:
                ep = epochs.read(target.read(log_format.epoch_name(dev, n)))
                opened = epochs.open_epoch(ep, device="", private=None, passphrase=passphrase)
            except (epochs.BadEpoch, FileNotFoundError):
                continue  # a damaged one: the next newest decides (the round reports it)
            if opened is None:
                raise errors.WrongPassphrase("That passphrase does not open the journal in this sync place: it "
                                             "was changed since. Nothing was changed, here or there.")
            return {**epochs.older_keys(ep, opened[0]), n: opened[0]}
        return {}
    finally:
        target.close()


def join(memoir_cls, url: str, passphrase: str, *, home=None, progress: Progress | None = None,
         opened: Opened | None = None, **overrides):
    """A journal kept in a sync place, opened on this computer for the first time with its passphrase:
    its key is taken from the target (or from `opened`, open_place's), the journal made here and the
    first round run. A wrong passphrase raises errors.WrongPassphrase before anything is written, here
    or there."""
    path = Path(home or os.environ.get("MEMOIR_HOME")
                or platformdirs.user_data_dir(config.APP_NAME, appauthor=False)).expanduser()
    if crypto.is_encrypted(path) or (path / "memoir.db").exists():
        raise errors.CannotSync("This computer already has a journal there: join into an empty folder.",
                                code="has_journal")
    opened = opened or open_place(url, passphrase)
    path.mkdir(parents=True, exist_ok=True)
    crypto.KeyFile.adopt(path, opened.data_key, passphrase=opened.passphrase, recovery_slot=opened.recovery)
    mem = memoir_cls.open(path, passphrase=opened.passphrase, **overrides)
    try:
        if opened.epochs:  # the keys of what was written after a passphrase change or a removal
            state.ensure_schema(mem.engine)
            with mem.engine.begin() as con:
                guard.save(con, "epochs", {str(n): epochs.b64(k) for n, k in opened.epochs.items() if n != 0})
        mem.sync.run(url, progress=progress)
    except BaseException:
        mem.close()
        raise
    return mem


def check(url: str, data_key: bytes | None = None) -> int:
    """Whether the sync place at `url` can be used, without writing to it or to the journal (only a missing
    folder is made, as the first round would make it): it is opened and listed. Returns how many computers
    keep a journal there. Raises errors.py's classes; with `data_key`, NotThisJournal when the place holds
    another journal. Settings → Sync's "Test the connection"."""
    target = _open_place(url)
    try:
        listing = log_format.read_listing(target.list(log_format.ROOT))
        boxes = list(_key_boxes(target, listing))
        # Another journal's place: no box keeps this journal's key. One stray box among ours is a round's
        # to isolate and name, not a reason to call the place another journal's.
        if data_key is not None and boxes and not any(sealing.same_journal(box, data_key) for box in boxes):
            raise errors.NotThisJournal(ANOTHER_JOURNAL)
        return sum(1 for files in listing.devices.values() if files.key)
    finally:
        target.close()


def notices(engine, *, unseen: bool = True) -> list[Notice]:
    with engine.connect() as con:
        if not state.exists(con):  # never synced: nothing to tell (a read makes no table)
            return []
        rows = con.execute(text("SELECT id, kind, entry_id, created_at FROM sync_notice "
                                + ("WHERE seen = 0 " if unseen else "") + "ORDER BY created_at, id"))
        return [Notice(i, k, e, t) for i, k, e, t in rows]


def status(part) -> SyncStatus:
    with part.engine.connect() as con:
        known = state.exists(con)  # never synced: no table yet, and a read makes none
        last = state.get(con, "last_sync") if known else None
        dev = state.get(con, "device") if known else None
    return SyncStatus(url=part.settings().sync_url, device=dev,
                      last_sync=datetime.fromisoformat(last) if last else None, notices=notices(part.engine))


def dismiss(part, notice_id: str) -> None:
    """The user has seen a notice: it is not shown again."""
    state.ensure_schema(part.engine)
    with part.engine.begin() as con:
        con.execute(text("UPDATE sync_notice SET seen = 1 WHERE id = :i"), {"i": notice_id})
