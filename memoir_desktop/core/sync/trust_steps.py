"""The steps of a round that keep a sync place from fooling it (a mixin of engine.Round): key epochs
learnt and published (epochs.py), the key boxes checked and isolated, this computer's own files verified
and its head written, another computer's head read (guard.py). Split from engine.py to keep each file one
reading; they use the round's state (keys, device, report, target) as its other steps do."""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlalchemy import text

from memoir_desktop.core.keys import crypto
from memoir_desktop.core.storage.models import now
from memoir_desktop.core.sync import epochs, errors, guard, log_format, records, sealing, state
from memoir_desktop.core.sync.report import Problem, Skipped, SyncReport
from memoir_desktop.core.sync.target import Target

log = logging.getLogger(__name__)

# Said by a round and by "Test the connection" alike when the place belongs to another journal.
ANOTHER_JOURNAL = ("That sync place already holds another journal: choose another folder, bucket or address for "
                   "this one. Nothing was changed there.")


class TrustSteps:
    """Round's steps about keys and trust (see the module's note). engine.Round sets these."""

    part: Any
    engine: Any
    target: Target
    device: str
    private: bytes
    passphrase: str | None
    keys: dict[int, bytes]
    epoch: int
    key: bytes
    report: SyncReport
    repair: bool
    isolated: set[str]
    head_stale: bool

    # -- key epochs (epochs.py) -------------------------------------------------------------------

    def _learn_epochs(self, listing: log_format.Listing) -> None:
        """The key epochs other computers started since this one last looked: their keys taken (as a
        member, or with the new passphrase typed here). One this computer cannot open stops the round
        before anything is written: it was removed, or the passphrase changed elsewhere."""
        found = sorted((n, dev) for dev, files in listing.devices.items() for n in files.epochs)
        with self.engine.connect() as con:
            removed = guard.load(con, "removed", {})
            read_before = set(guard.load(con, "epochs_read", []))
        learnt = False
        for n, dev in found:
            name = log_format.epoch_name(dev, n)
            if name in read_before:
                continue
            try:
                ep = epochs.read(self.target.read(name))
                if ep.number != n or ep.by != dev:
                    raise epochs.BadEpoch("its contents do not match its name")
                if n in self.keys:  # its key came another way (joining): its list of removed computers is read
                    if not epochs.check_with(ep, self.keys[n]):
                        raise epochs.BadEpoch("a key epoch whose fields were changed")
                    removed.update({d: {"upto": upto, "at": ep.at} for d, upto in ep.removed.items()})
                    read_before.add(name)
                    learnt = True
                    continue
                opened = epochs.open_epoch(ep, device=self.device, private=self.private, passphrase=self.passphrase)
            except FileNotFoundError:
                continue
            except epochs.BadEpoch as exc:
                self.report.skipped.append(Skipped(name, "damaged", str(exc)))
                continue
            if opened is None:
                if self.device in ep.removed:
                    raise errors.Removed(
                        f"This computer was removed from the journal on {guard.when(ep.at)}, on another of your "
                        "computers. It keeps what it had, syncs no more and reads nothing written since. "
                        "Nothing was changed.")
                raise errors.NewPassphrase(
                    f"The journal's passphrase was changed on another computer on {guard.when(ep.at)}: type the "
                    "new passphrase here to go on syncing (memoir-cli: MEMOIR_NEW_PASSPHRASE). Until then this "
                    "computer reads nothing written since. Nothing was changed.")
            key, how = opened
            self.keys.update(epochs.older_keys(ep, key))
            self.keys[n] = key
            removed.update({d: {"upto": upto, "at": ep.at} for d, upto in ep.removed.items()})
            if how == "passphrase" and ep.data_slot:
                self._adopt_passphrase(ep.data_slot)
            read_before.add(name)
            learnt = True
        if learnt:
            self._save_keys(removed=removed)
            with self.engine.begin() as con:
                guard.save(con, "epochs_read", sorted(read_before))
            self.epoch = max(self.keys)
            self.key = self.keys[self.epoch]

    def _adopt_passphrase(self, slot: dict) -> None:
        """The passphrase changed on another computer, and the diarist typed the new one here: this
        computer's key file opens with it from now on (the old one no longer does), as on the other."""
        kf = self.part.keys.key_file
        trial = crypto.KeyFile(kf.home, {**kf.data, "passphrase": slot})
        try:
            opened = trial.unlock_secret(self.passphrase or "")
        except crypto.WrongPassphrase:
            return
        if opened.via == "passphrase" and opened.data_key == self.part.keys.data_key:
            kf.data["passphrase"] = slot
            kf.save()

    def _save_keys(self, *, removed: dict | None = None) -> None:
        with self.engine.begin() as con:
            guard.save(con, "epochs", {str(n): epochs.b64(k) for n, k in self.keys.items() if n != 0})
            if removed is not None:
                guard.save(con, "removed", removed)

    def _publish_rotation(self, listing: log_format.Listing) -> bool:
        """A rotation asked for here (a passphrase change, a computer removed) made real: a new key epoch
        written to the place, the key boxes it makes stale removed. True when the place changed."""
        with self.engine.connect() as con:
            pending = guard.load(con, "rotate", None)
            pins = guard.load(con, "pins", {})
            removed = guard.load(con, "removed", {})
            applied = state.applied(con)
        if not pending:
            return False
        key = epochs.unb64(pending["key"])
        number = max([n for files in listing.devices.values() for n in files.epochs] + list(self.keys)) + 1
        drop = [d for d in pending.get("remove", []) if d != self.device]
        me = {self.device: epochs.public_of(self.private)}
        if pending["reason"] == "passphrase":
            # Only this computer: the others, the lost one among them, need the new passphrase once.
            members = me
        else:
            members = {d: pub for d, pub in pins.items() if d not in drop and d not in removed} | me
        at = now().isoformat()
        blob = epochs.make(number, self.device, at, pending["reason"], key, members=members,
                           passphrase=pending["pslot"], removed={d: state.upto(applied.get(d, set())) for d in drop},
                           data_slot=self.part.keys.key_file.data.get("passphrase"), older=dict(self.keys))
        name = log_format.epoch_name(self.device, number)
        self.target.put(name, blob)
        self.keys[number] = key
        self.epoch, self.key = number, key
        removed.update({d: {"upto": state.upto(applied.get(d, set())), "at": at} for d in drop})
        self._save_keys(removed=removed)
        with self.engine.begin() as con:
            kept = guard.load(con, "epoch_files", {})
            kept[name] = epochs.b64(blob)  # sent again if the place loses it (_verify_own)
            guard.save(con, "epoch_files", kept)
            guard.save(con, "epochs_read", sorted(set(guard.load(con, "epochs_read", [])) | {name}))
            con.execute(text("DELETE FROM sync_state WHERE key IN ('rotate', 'box')"))
            known = set(json.loads(state.get(con, "boxes_ok") or "[]")) - set(drop)
            state.put(con, "boxes_ok", json.dumps(sorted(known)))
        stale = [d for d, files in listing.devices.items() if files.key and d != self.device
                 and (pending["reason"] == "passphrase" or d in drop)]
        for dev in stale:  # under the old passphrase, or the removed computer's: nothing may join by them
            self.target.delete(log_format.key_name(dev))
        return True

    # -- lock boxes -----------------------------------------------------------------------------

    def _check_boxes(self, listing: log_format.Listing) -> None:
        """Every other computer's key box must keep this journal's key. One that does not (another
        journal's, a damaged one, one whose computer key changed) is isolated: that computer's files are
        left aside and named, the others sync on. Only a place where no box is this journal's (and this
        computer never wrote) belongs to another journal, and nothing is written there."""
        with self.engine.connect() as con:
            known = set(json.loads(state.get(con, "boxes_ok") or "[]"))
            pins = guard.load(con, "pins", {})
            removed = guard.load(con, "removed", {})
        foreign: list[tuple[str, str]] = []
        for dev, files in listing.devices.items():
            if dev == self.device:
                continue
            if dev in removed:
                self.isolated.add(dev)  # removed here or elsewhere: its files past that are not taken
                continue
            if not files.key or dev in known:
                continue
            try:
                box = sealing.read_box(self.target.read(log_format.key_name(dev)))
            except FileNotFoundError:
                continue
            except sealing.Unreadable as exc:
                foreign.append((dev, f"The key box of the computer folder {dev} in the sync place cannot be read "
                                     f"({exc}): that folder's files are left aside; the others sync on."))
                continue
            if not sealing.same_journal(box, self.part.keys.data_key):
                foreign.append((dev, f"The computer folder {dev} in the sync place holds another journal's key: "
                                     "its files are left aside and the others sync on. Remove that folder from the "
                                     "sync place if it is not one of your computers."))
                continue
            pub = box.data.get("device_pub")
            if pub and dev in pins and pins[dev] != pub:
                foreign.append((dev, f"The key box of the computer folder {dev} changed its computer key: its files "
                                     "are left aside. If you set that computer up again, remove the old one in "
                                     "Settings → Sync."))
                continue
            if pub:
                pins[dev] = pub
            known.add(dev)
        mine = listing.devices.get(self.device)
        if foreign and not known and not (mine and (mine.key or mine.segments or mine.snapshots)):
            raise errors.NotThisJournal(ANOTHER_JOURNAL)
        for dev, message in foreign:
            self.isolated.add(dev)
            self.report.problems.append(Problem(dev, "another_journal" if "another journal" in message
                                                else "damaged_box", message))
        with self.engine.begin() as con:
            state.put(con, "boxes_ok", json.dumps(sorted(known)))
            guard.save(con, "pins", pins)

    def _write_box(self, listing: log_format.Listing) -> None:
        kf = self.part.keys.key_file
        pub = epochs.public_of(self.private)
        body = sealing.lock_box(kf, pub)
        mark = records.digest([kf.data.get("passphrase"), pub])
        mine = listing.devices.get(self.device)
        with self.engine.connect() as con:
            written = state.get(con, "box")
        if mine is None or not mine.key or written != mark:
            self.target.put(log_format.key_name(self.device), body)
            with self.engine.begin() as con:
                state.put(con, "box", mark)

    # -- what this computer sent: verified each round, its head written ---------------------------

    def _sent(self, con, name: str, body: bytes) -> None:
        """A file of ours the place has now: remembered (size, hash, when) and chained."""
        digest = guard.sha(body)
        sent = guard.load(con, "uploaded", {})
        sent[name] = [len(body), digest, now().isoformat()]
        guard.save(con, "uploaded", sent)
        state.put(con, "chain", guard.extend_chain(state.get(con, "chain") or "", name, digest))

    # Every file of ours is checked by size each round (the listing has it); a few small ones are also read
    # back and hashed, the longest unchecked first, so a bit changed in place is found within some rounds
    # without a round reading back everything (each read is a request to a server).
    VERIFY_FILES = 4
    VERIFY_BYTES = 512 * 1024

    def _verify_own(self, listing: log_format.Listing) -> None:
        """Our files as the place holds them: one missing, of another size or (small ones, read back)
        another hash means the place lost or changed it, and this round sends it all again."""
        mine = listing.devices.get(self.device) or log_format.DeviceFiles(self.device)
        present = {log_format.segment_name(self.device, n): size for n, size in mine.segments.items()}
        present |= {log_format.snapshot_name(self.device, n): size for n, size in mine.snapshots.items()}
        with self.engine.connect() as con:
            sent = guard.load(con, "uploaded", None)
            kept_epochs = guard.load(con, "epoch_files", {})
        if sent is None:
            sent = self._seed_sent(present)
        with self.engine.connect() as con:
            checked = guard.load(con, "verified", {})
        bad = [name for name, (size, _d, _at) in sent.items() if present.get(name) != size]
        budget, reads = self.VERIFY_BYTES, 0
        for name in sorted((n for n in sent if n not in bad and "/seg-" in n), key=lambda n: checked.get(n, "")):
            size, digest, _at = sent[name]
            if reads >= self.VERIFY_FILES or size > budget:
                break
            budget, reads = budget - size, reads + 1
            try:
                same = guard.sha(self.target.read(name)) == digest
            except FileNotFoundError:
                same = False
            if same:
                checked[name] = now().isoformat()
            else:
                bad.append(name)
        with self.engine.begin() as con:
            guard.save(con, "verified", {n: at for n, at in checked.items() if n in sent})
        for name, blob in kept_epochs.items():
            n = int(name.rsplit("-", 1)[-1])
            if n not in mine.epochs:
                self.target.put(name, epochs.unb64(blob))
                self.report.repaired += 1
        self.head_stale = not mine.head
        if mine.head:  # put back to an older one, or changed: written again at the end of the round
            name = log_format.head_name(self.device)
            try:
                there = sealing.unseal(self.keys, name, self.target.read(name))
                with self.engine.connect() as con:
                    self.head_stale = there.get("chain") != (state.get(con, "chain") or "")
            except (FileNotFoundError, sealing.Unreadable):
                self.head_stale = True
        if bad:
            log.info("sync: %d file(s) of this computer missing or changed in the place; sending again", len(bad))
            self.report.repaired += len(bad)
            self.repair = True

    def _seed_sent(self, present: dict[str, int]) -> dict:
        """A journal synced before heads existed: what the place holds of ours now is taken as sent (read
        once, to know each file's hash), so its head can name them and the next rounds check them."""
        sent: dict[str, list] = {}
        for name in sorted(present):
            try:
                body = self.target.read(name)
            except FileNotFoundError:
                continue
            sent[name] = [len(body), guard.sha(body), now().isoformat()]
        with self.engine.begin() as con:
            guard.save(con, "uploaded", sent)
            chain = ""
            for name, (_size, digest, _at) in sent.items():
                chain = guard.extend_chain(chain, name, digest)
            state.put(con, "chain", chain)
        return sent

    def _write_head(self, listing: log_format.Listing) -> None:
        """This computer's head, sealed: its files and their hashes, its hash chain. Written when it
        changed (or the place lost it), once everything in the outbox is there."""
        with self.engine.connect() as con:
            if con.execute(text("SELECT COUNT(*) FROM sync_outbox")).scalar():
                return
            sent = guard.load(con, "uploaded", {})
            chain = state.get(con, "chain") or ""
            snap = int(state.get(con, "snapshot") or 0)
            written = state.get(con, "head")
        if not sent:
            return
        files = {name.rsplit("/", 1)[-1]: [digest, at] for name, (_size, digest, at) in sent.items()
                 if "/seg-" in name or "/snap-" in name}
        seq = max((int(f.rsplit("-", 1)[-1]) for f in files), default=0)
        mark = records.digest([self.epoch, seq, snap, files, chain])
        if written == mark and not self.head_stale and not self.report.repaired:
            return
        name = log_format.head_name(self.device)
        payload = guard.head_payload(self.device, seq, snap, files, chain, now().isoformat())
        self.target.put(name, sealing.seal(self.key, name, payload, self.epoch))
        with self.engine.begin() as con:
            state.put(con, "head", mark)

    def _head(self, dev: str, files: log_format.DeviceFiles) -> guard.Head | None:
        if not files.head:
            return None
        name = log_format.head_name(dev)
        try:
            blob = self.target.read(name)
            head = guard.Head.read(sealing.unseal(self.keys, name, blob), dev, epoch=sealing.epoch_of(blob) or 0)
        except FileNotFoundError:
            return None
        except sealing.Unreadable as exc:
            self.report.skipped.append(Skipped(name, exc.kind, str(exc)))
            return None
        if head is None:
            self.report.skipped.append(Skipped(name, "damaged", "its contents do not match its name"))
        return head


def named(dev: str, head: guard.Head | None, seen: dict | None) -> str:
    """A computer as the diarist is told of it: its name, and the start of its id (two computers may
    have one name)."""
    name = (head.name if head is not None else (seen or {}).get("name")) or "a computer"
    return f"“{name}” ({dev[:6]})"
