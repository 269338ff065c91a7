"""The `Archive` part: the journal in and out: exports (memoir JSON, encrypted or not; Markdown or text), imports (a memoir
export, a Day One export) with the memories of a Day One import made in the background as a batch
that can be followed, cancelled and resumed, and the database backups.

Threading rule: imports write (the writer); exports and backups read.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import Session, col, select

from memoir_desktop.core.archive import backup, markdown_import, transfer
from memoir_desktop.core.archive.text_export import export_text
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.importers.dayone import DayOneError, read_dayone_export
from memoir_desktop.core.inputs import InvalidInput
from memoir_desktop.core.jobs import queue
from memoir_desktop.core.jobs.queue import JobQueue
from memoir_desktop.core.journal.entries import Journal
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.storage.models import Entry, Meta, now, pk

IMPORT_UNDER_WAY = "import_under_way"  # Meta: an import that began and has not ended


class TextExport(list[str]):
    """The paths a text export wrote (a list, as it always was), and what it did not hold: `entries`
    written, `left_out` counted ({"private", "trash"}), `said` in sentences."""

    def __init__(self, paths: list[str], *, entries: int, left_out: dict[str, int], said: list[str]):
        super().__init__(paths)
        self.entries, self.left_out, self.said = entries, left_out, said


class Archive:
    def __init__(self, engine, home, journal: Journal, jobs_queue: JobQueue, *, settings, data_key, graph_store,
                 lexical, reconcile):
        self.engine, self.home, self.journal, self.jobs_queue = engine, home, journal, jobs_queue
        self._settings, self._data_key = settings, data_key
        self.graph_store, self.lexical, self._reconcile = graph_store, lexical, reconcile

    def export(self, path, *, passphrase: str | None = None) -> dict:
        """Write the whole journal as JSON (see core/archive/transfer.py; never the API key). With a
        passphrase the file is encrypted; without one it is plain text anyone can read."""
        return transfer.export_journal(self.engine, path, passphrase=passphrase)

    def import_(self, path, *, passphrase: str | None = None) -> dict:
        """Merge an export: existing memories (same id) are kept; entries get new ids.
        An encrypted export needs its passphrase (crypto.WrongPassphrase when it is wrong)."""
        try:
            data = transfer.read_export(path, passphrase)
        except (transfer.PassphraseRequired, crypto.WrongPassphrase):
            raise
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        counts, graph_users = transfer.import_journal(self.engine, data)
        for user_id in graph_users:
            self.graph_store.invalidate_cache(user_id)
        self.lexical.drop_all()  # imported memories and entries are not in the built indexes
        self._reconcile()
        return counts

    def import_file(self, path, *, user_id: str = "me", progress=None, passphrase: str | None = None) -> dict:
        """A memoir export (JSON, or encrypted), memoir's Markdown (a .md file, or the folder of day files or
        notes it wrote) or a Day One export (.zip, or its .json): told apart by content."""
        if transfer.is_memoir_export(path):
            return {"kind": "memoir", **self.import_(path, passphrase=passphrase)}
        if markdown_import.is_markdown_export(path):
            return {"kind": "markdown", **self.import_markdown(path, user_id=user_id)}
        return {"kind": "dayone", **self.import_dayone(path, user_id=user_id, progress=progress)}

    def import_markdown(self, path, *, user_id: str = "me") -> dict:
        """memoir's Markdown export back into the journal: each entry as it was (text, date, tags, privacy,
        replies and letters), under its own id, so an entry the journal holds is recognised and skipped.
        The diarist's entries that are not private get their memories made in the background as a batch,
        as a Day One import's (batch_progress, cancel_batch)."""
        try:
            read = markdown_import.read_markdown_export(path)
        except markdown_import.MarkdownError as exc:
            raise InvalidInput(str(exc)) from exc
        batch = f"import-{now():%Y%m%d-%H%M%S}"
        with Session(self.engine) as s:
            held = dict(s.exec(select(Entry.uuid, Entry.id).where(col(Entry.uuid).in_([e.uuid for e in read.entries]))
                               ).all())
        fresh = [e for e in read.entries if e.uuid not in held]
        ids: list[int] = []
        memorizing = 0
        # 200 a transaction (the user's own actions go between); a second run brings in what a cut one had not.
        for at in range(0, len(fresh), 200):
            with self.journal.write_lock, Session(self.engine) as s:
                for e in fresh[at:at + 200]:
                    row = Entry(uuid=e.uuid, user_id=user_id, role=e.role, content=e.content, created_at=e.created_at,
                                source="import", tags=list(e.tags), time_zone=e.time_zone, source_ref=e.source_ref,
                                kind=e.kind, private=e.private, reply_to=held.get(e.reply_to or ""))
                    s.add(row)
                    s.flush()
                    held[e.uuid] = pk(row)
                    ids.append(pk(row))
                    # A private entry never goes to an AI; a reply is the companion's, a letter memoir's.
                    if e.role == "user" and e.kind == "entry" and not e.private:
                        queue.enqueue(s, "memorize", user_id, {"entry_ids": [pk(row)], "batch": batch})
                        memorizing += 1
                s.commit()
        self.lexical.drop_all()  # the imported entries are not in the built indexes
        if ids:
            self._reconcile()  # found by meaning too, also those no memory job will read
        moods = sum(e.mood is not None for e in fresh)
        warnings = [f"{len(read.others)} other Markdown file(s) in the folder are not memoir's and were left "
                    "alone."] if read.others else []
        if moods:
            warnings.append(f"{moods} noted mood(s) are not kept: memoir notes moods again as it reads the "
                            "entries, when mood notes are on.")
        return {"entries": len(fresh), "already_there": len(read.entries) - len(fresh), "files": read.files,
                "private": sum(e.private for e in fresh), "batch": batch, "memorizing": memorizing, "warnings": warnings,
                "changes": Changes.of(entries=ids).to_dict()}

    def import_dayone(self, path, *, user_id: str = "me", progress=None) -> dict:
        """Day One entries become journal entries (their dates, tags and time zones kept); their
        memories are made in the background, one job each, as a batch that can be followed and
        cancelled (batch_progress, cancel_batch). An entry imported before is skipped."""
        try:
            read = read_dayone_export(path, progress=progress)
        except DayOneError as exc:
            raise InvalidInput(str(exc)) from exc
        batch = f"import-{now():%Y%m%d-%H%M%S}"
        cut_short = self._cut_short_import()
        with Session(self.engine) as s:
            known = set(s.exec(select(Entry.source_ref).where(col(Entry.user_id) == user_id,
                                                              col(Entry.source_ref).is_not(None))))
        fresh = [e for e in read.entries if f"dayone:{e.source_id}" not in known]
        # The entries go in 200 a transaction (the user's own actions go between), so a kill leaves part
        # of them: this says so until an import runs to its end, and the next run brings in the rest.
        self._set_meta(IMPORT_UNDER_WAY, json.dumps({"file": Path(path).name, "batch": batch,
                                                     "total": len(read.entries), "before": len(read.entries) - len(fresh),
                                                     "started": now().isoformat()}))
        ids = self.journal.import_entries(
            [{"content": e.text, "created_at": e.created_at, "tags": list(e.tags), "time_zone": e.time_zone,
              "source_ref": f"dayone:{e.source_id}"} for e in fresh], user_id=user_id, batch=batch)
        self._set_meta(IMPORT_UNDER_WAY, None)
        return {"entries": len(fresh), "already_there": len(read.entries) - len(fresh), "skipped": read.skipped,
                "cut_short": cut_short,
                "media": read.media, "media_kinds": dict(read.media_kinds), "warnings": read.warnings, "batch": batch,
                # Not kept (entries have no field for them): counted so every report can say so.
                "starred": sum(e.starred for e in read.entries),
                "located": sum(e.place is not None for e in read.entries),
                "changes": Changes.of(entries=ids).to_dict()}

    def _set_meta(self, key: str, value: str | None) -> None:
        with Session(self.engine) as s:
            row = s.get(Meta, key)
            if value is None:
                if row is not None:
                    s.delete(row)
            elif row is None:
                s.add(Meta(key=key, value=value))
            else:
                row.value = value
                s.add(row)
            s.commit()

    def _cut_short_import(self) -> dict | None:
        """The import that began and never ended (killed, a crash), with how far it came, or None."""
        with Session(self.engine) as s:
            row = s.get(Meta, IMPORT_UNDER_WAY)
        if row is None:
            return None
        try:
            was = json.loads(row.value)
            came = int(was.get("before", 0)) + self.batch_progress(str(was["batch"]))["total"]
            return {"file": str(was["file"]), "started": str(was["started"]), "done": came, "total": int(was["total"]),
                    "message": f"The import of {was['file']} begun {str(was['started'])[:16].replace('T', ' ')} was "
                               f"cut short after {came:,} of {int(was['total']):,} entries; this run brought in "
                               "what it had not."}
        except (ValueError, KeyError, TypeError):
            return {"file": "", "started": "", "done": 0, "total": 0,
                    "message": "An import begun earlier was cut short; this run brought in what it had not."}

    def batch_progress(self, batch: str) -> dict:
        """How far the memory building of an import has come: {total, done, failed, pending, cancelled}."""
        out = {"total": 0, "done": 0, "failed": 0, "pending": 0, "cancelled": 0}
        for j in self.jobs_queue.list():
            # The entries' memories; the graph jobs that follow them are not entries of the import.
            if j.kind == "memorize" and (j.payload or {}).get("batch") == batch:
                out["total"] += 1
                key = {"running": "pending", "waiting": "pending"}.get(j.state, j.state)
                out[key] = out.get(key, 0) + 1
        return out

    def cancel_batch(self, batch: str) -> int:
        """Stop making memories for an import (its entries stay); resume_batch starts again."""
        return self.jobs_queue.set_batch_state(batch, "pending", "cancelled")

    def resume_batch(self, batch: str) -> int:
        return self.jobs_queue.set_batch_state(batch, "cancelled", "pending")

    def export_text(self, path, *, fmt: str = "md", per_day: bool = False, per_entry: bool = False,
                    lang: str = "ko", include_private: bool = False, user_id: str = "me") -> TextExport:
        """The journal as Markdown (memoir's own, ready for Obsidian, read back by `import_file`) or plain
        text: one file, one per day, or (Markdown) one note per entry. Not the trash, and not the private
        entries unless `include_private`: notes apps share their folders with sync services and AI plugins,
        which a private entry is kept from. Returns the paths written, with what the files do not hold."""
        everything = self.journal.entries(user_id=user_id, letters=True)
        entries = [e for e in everything if include_private or not e["private"]]
        with Session(self.engine) as s:
            rows = s.exec(select(Entry.id, Entry.uuid, Entry.reply_to).where(col(Entry.user_id) == user_id)).all()
        uuids = {entry_id: uuid for entry_id, uuid, _ in rows}
        replies = {entry_id: uuids.get(answered) for entry_id, _, answered in rows if answered is not None}
        entries = [{**e, "uuid": uuids.get(e["id"]), "reply_to_uuid": replies.get(e["id"])} for e in entries]
        paths = export_text(entries, path, fmt=fmt, per_day=per_day, per_entry=per_entry, lang=lang,
                            moods=self._moods(user_id) if fmt == "md" else None)
        left_out = {"private": len(everything) - len(entries), "trash": len(self.journal.in_trash(user_id=user_id))}
        return TextExport([str(p) for p in paths], entries=len(entries), left_out=left_out,
                          said=_left_out_said(left_out))

    def _moods(self, user_id: str) -> dict[int, str]:
        """The mood memoir noted of each entry (mood notes on, an AI connected), by entry id."""
        out: dict[int, str] = {}
        for job in self.jobs_queue.list("done", user_id):
            mood, ids = (job.result or {}).get("mood"), (job.payload or {}).get("entry_ids") or []
            if mood and ids:
                out[ids[0]] = str(mood)
        return out

    def backup_now(self) -> str:
        return str(backup.make_backup(self.home, self._settings().backups_keep, data_key=self._data_key))

    def backups(self) -> list[str]:
        return [str(p) for p in backup.list_backups(self.home)]


def _left_out_said(left_out: dict) -> list[str]:
    said = []
    if left_out["private"]:
        n = left_out["private"]
        said.append(f"{n} private {'entry was' if n == 1 else 'entries were'} left out; an export that includes "
                    "them marks each private: true.")
    if left_out["trash"]:
        n = left_out["trash"]
        said.append(f"{n} {'entry' if n == 1 else 'entries'} in the trash {'was' if n == 1 else 'were'} left out.")
    said.append("Memories, their history and the graph are not in these files: a memoir backup (JSON) keeps them.")
    return said
