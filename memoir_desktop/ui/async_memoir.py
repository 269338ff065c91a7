"""`AsyncMemoir`: the UI's asynchronous face of the `Memoir` facade — the one adapter.

Threading rule: every method returns at once. Reads (and chat, whose LLM call can take seconds)
run on the reads pool; anything that changes memories runs on the `BackgroundWriter` (jobs, and
the user's own edits on the thread no job holds). Callbacks and signals arrive on the UI thread.
Widgets talk to this object, never to `Memoir`; this object only calls `Memoir`'s public methods.
Background work uses two pools (reads, writer) plus the graph's layout worker, nothing else.

After any write, `changed(Changes)` says what moved (memories, entries, graph, proposals, summary,
settings), so each page refreshes only what it shows.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import date, datetime

from PySide6.QtCore import QObject, QTimer, Signal

from memoir_desktop.core import config, secrets
from memoir_desktop.core.changes import Changes
from memoir_desktop.ui.background_writer import BackgroundWriter
from memoir_desktop.ui.tasks import TaskRunner, call_if_alive
from memoir_desktop.viewmodels.day import DayView, build_day_view
from memoir_desktop.viewmodels.graph_view import load_snapshot
from memoir_desktop.viewmodels.journal_stats import JournalStats, build_journal_stats
from memoir_desktop.viewmodels.stats_series import StatsData, build_stats

log = logging.getLogger(__name__)

Callback = Callable | None


class AsyncMemoir(QObject):
    changed = Signal(object)  # Changes: what a job or a user action changed
    job_finished = Signal(dict)
    import_progress = Signal(int, int)  # entries read so far, of how many (an import being read)
    pending_changed = Signal(int)
    llm_reachable_changed = Signal(object)  # True | False | None (not configured)
    status_changed = Signal(dict)
    settings_changed = Signal(object)  # the new Settings
    error = Signal(str)  # a failure no caller handled, as a sentence for the status bar
    index_progress = Signal(int, int)  # the search index rebuilt for a new model: memories done, of total
    switch_failed = Signal(str)  # a newly chosen search model could not be used (the one in use stays)
    model_progress = Signal(str, int, int)  # a search model downloading: catalog key, bytes done, of total

    def __init__(self, mem, parent: QObject | None = None, reads: TaskRunner | None = None):
        super().__init__(parent)
        self.mem = mem
        # The app's reads pool, made before the journal opened (start-up used it); a pool of our own otherwise.
        self.reads = reads or TaskRunner(3, self)
        self.writer = BackgroundWriter(mem, self)
        self._building = False  # a chunk of a new model's index is queued or running
        self.writer.job_finished.connect(self._on_job_finished)
        self.writer.pending_changed.connect(self.pending_changed)
        self.writer.llm_reachable.connect(lambda ok: self.llm_reachable_changed.emit(ok))
        self.reads.error.connect(lambda exc: self.error.emit(str(exc)))
        self.writer.error.connect(lambda exc: self.error.emit(str(exc)))

    @property
    def home(self):
        return self.mem.home

    @property
    def settings(self) -> config.Settings:
        return self.mem.settings

    @property
    def llm_configured(self) -> bool:
        return self.mem.llm_configured

    @property
    def llm_mode(self) -> str | None:
        """How the configured server is asked (tools, json_schema, json_object, text); None before the probe."""
        return self.mem.llm_mode

    @property
    def idle(self) -> bool:
        """Nothing in flight (used by screenshots and tests to wait for the UI to settle)."""
        return self.reads.in_flight == 0 and not self.writer.busy

    OUTSIDE_EVERY_MS = 3000  # how soon a memory another app added shows (one small query a tick)

    def start(self) -> None:
        self.writer.start()
        self._watch_outside()
        self.refresh_status()
        self.check_llm()
        self.reads.submit(self.mem.warm_search)
        if self.mem.index_switch is not None:  # a new model's index left half built at the last quit
            self._build_next_index()

    def _watch_outside(self) -> None:
        """Another process on this journal (the MCP server, memoir-cli) writes too: its changes reach
        the screens as `changed`, as our own do."""
        self._outside_busy = False
        self._outside_timer = QTimer(self)
        self._outside_timer.setInterval(self.OUTSIDE_EVERY_MS)
        self._outside_timer.timeout.connect(self.check_outside)
        self._outside_timer.start()

    def check_outside(self) -> None:
        if self._outside_busy:
            return
        self._outside_busy = True

        def done(changes: Changes) -> None:
            self._outside_busy = False
            if changes:
                self.changed.emit(changes)

        def failed(exc: BaseException) -> None:
            self._outside_busy = False
            log.warning("could not read what other programs changed: %s", exc)

        self.reads.submit(self.mem.outside_changes, done, failed)

    # -- a newly chosen embedding model: its index built beside the one in use --------------------

    def _build_next_index(self) -> None:
        """One chunk at a time on the writer, after any user write waiting: search keeps the model in
        use until the new index is complete (core/index_switch.py)."""
        if self._building:
            return
        self._building = True

        def done(step: dict) -> None:
            self._building = False
            if step.get("stopped"):
                return  # Stop was clicked meanwhile
            self.index_progress.emit(step["done"], step["total"])
            if step["finished"]:
                self.refresh_status()
                self.settings_changed.emit(self.mem.settings)
            elif self.mem.index_switch is not None:
                self._build_next_index()

        def failed(exc: BaseException) -> None:
            self._building = False
            self.switch_failed.emit(str(exc))
            self.settings_changed.emit(self.mem.settings)

        self.writer.submit_background(self.mem.step_embedder_switch, done, failed)

    def cancel_embedder_switch(self, on_done: Callback = None) -> None:
        """Stop building the new model's index; the model in use stays."""
        def done(_r=None) -> None:
            self.settings_changed.emit(self.mem.settings)
            call_if_alive(on_done)

        self._write(self.mem.cancel_embedder_switch, done, None)

    def shutdown(self, grace_ms: int) -> bool:
        """Stop taking work; wait up to `grace_ms` for running tasks. True if all finished."""
        if getattr(self, "_outside_timer", None) is not None:
            self._outside_timer.stop()
        self.writer.stop()
        writer_done = self.writer.wait(grace_ms)
        reads_done = self.reads.wait(grace_ms)
        self.reads.close()
        return writer_done and reads_done

    # -- journal --------------------------------------------------------------------------

    def chat(self, text: str, on_done: Callback, on_error: Callback = None, on_saved: Callback = None,
             timestamp=None) -> None:
        """Save the message (on_saved(turn) as soon as it is on disk), then ask for the answer
        (on_done(out)). The save is a short write; the answer can take a while, on the reads pool."""
        def done(out: dict) -> None:
            self.writer.poke()
            self.changed.emit(Changes.of(entries=[out.get("entry_id"), out.get("reply_entry_id")]))
            if out.get("error"):
                self.llm_reachable_changed.emit(False if self.llm_configured else None)
            elif out.get("reply"):
                self.llm_reachable_changed.emit(True)
            call_if_alive(on_done, out)

        def saved(turn: dict) -> None:
            self.changed.emit(Changes.of(entries=[turn["entry_id"]]))
            call_if_alive(on_saved, turn)
            self.reads.submit(lambda: self.mem.answer_chat(turn), done, on_error)

        self.writer.submit(lambda: self.mem.begin_chat(text, timestamp=timestamp), saved, on_error)

    def save_entry(self, text: str, on_done: Callback = None, on_error: Callback = None, timestamp=None,
                   private: bool = False) -> None:
        """Save an entry without asking the companion (its memories are made in the background).
        A private entry is only journaled: it is never sent to the LLM."""
        def done(entry_id: int) -> None:
            self.writer.poke()
            self.changed.emit(Changes.of(entries=[entry_id]))
            call_if_alive(on_done, entry_id)

        self.writer.submit(lambda: self.mem.journal(text, timestamp=timestamp, private=private), done, on_error)

    def ask_about(self, entry_id: int, on_done: Callback, on_error: Callback = None) -> None:
        """Ask the companion about an entry saved without a reply: its text is the question's subject."""
        def done(out: dict) -> None:
            self.changed.emit(Changes.of(entries=[out.get("reply_entry_id")]))
            call_if_alive(on_done, out)

        self.reads.submit(lambda: self.mem.reply_to(entry_id), done, on_error)

    # -- entries: the user's own actions (writer), and reads -----------------------------------

    def edit_entry(self, entry_id: int, text: str, on_done: Callback = None, on_error: Callback = None) -> None:
        self._write(lambda: self.mem.edit_entry(entry_id, text), self._poked(on_done), on_error)

    def move_entry(self, entry_id: int, when, on_done: Callback = None, on_error: Callback = None) -> None:
        self._write(lambda: self.mem.move_entry(entry_id, when), self._poked(on_done), on_error)

    def set_entry_private(self, entry_id: int, private: bool, on_done: Callback = None,
                          on_error: Callback = None) -> None:
        self._write(lambda: self.mem.set_entry_private(entry_id, private), self._poked(on_done), on_error)

    def delete_entry(self, entry_id: int, on_done: Callback = None, on_error: Callback = None) -> None:
        """To the trash (restorable)."""
        self._write(lambda: self.mem.delete_entry(entry_id), on_done, on_error)

    def restore_entry(self, entry_id: int, on_done: Callback = None, on_error: Callback = None) -> None:
        self._write(lambda: self.mem.restore_entry(entry_id), on_done, on_error)

    def purge_preview(self, entry_id: int, on_done: Callable[[dict], None], on_error: Callback = None) -> None:
        self.reads.submit(lambda: self.mem.purge_preview(entry_id), on_done, on_error)

    def purge_entry(self, entry_id: int, on_done: Callback = None, on_error: Callback = None) -> None:
        """Delete forever (only from the trash)."""
        self._write(lambda: self.mem.purge_entry(entry_id), on_done, on_error)

    def trash(self, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(self.mem.trash, on_done)

    def entry_history(self, entry_id: int, on_done: Callable[[list[dict]], None], on_error: Callback = None) -> None:
        self.reads.submit(lambda: self.mem.entry_history(entry_id), on_done, on_error)

    def find(self, query: str, on_done: Callable[[dict], None], limit: int = 30) -> None:
        """Entries and memories for the one search field: {"entries": [...], "memories": [...]}."""
        self.reads.submit(lambda: self.mem.find(query, limit=limit), on_done)

    # -- files: import, export, backups ------------------------------------------------------------

    def import_file(self, path: str, on_done: Callback = None, on_error: Callback = None,
                    passphrase: str | None = None) -> None:
        """Read a memoir or Day One export; `import_progress(done, total)` while it is read. The
        memories of a Day One import are then made in the background (batch_progress). An encrypted
        export needs its passphrase (a wrong one fails with crypto.WrongPassphrase, nothing changed)."""
        def work() -> dict:
            return self.mem.import_file(path, progress=lambda d, t: self.import_progress.emit(d, t),
                                        passphrase=passphrase)

        def done(result: dict) -> None:
            self.writer.poke()
            self.changed.emit(Changes.from_dict(result.get("changes")) | Changes(graph=True, proposals=True)
                              if result.get("kind") == "memoir" else Changes.from_dict(result.get("changes")))
            call_if_alive(on_done, result)

        self.writer.submit(work, done, on_error)

    def batch_progress(self, batch: str, on_done: Callable[[dict], None]) -> None:
        self.reads.submit(lambda: self.mem.batch_progress(batch), on_done)

    def cancel_batch(self, batch: str, on_done: Callback = None) -> None:
        self.writer.submit(lambda: self.mem.cancel_batch(batch), on_done)

    def resume_batch(self, batch: str, on_done: Callback = None) -> None:
        self.writer.submit(lambda: self.mem.resume_batch(batch), self._poked(on_done))

    def export_json(self, path: str, on_done: Callback = None, on_error: Callback = None,
                    passphrase: str | None = None) -> None:
        """With a passphrase the export is encrypted (it opens on another computer with it)."""
        self.reads.submit(lambda: self.mem.export(path, passphrase=passphrase), on_done, on_error)

    # -- privacy: keys, app lock, what leaves the machine -------------------------------------------

    @property
    def encrypted(self) -> bool:
        return self.mem.encrypted

    @property
    def has_passphrase(self) -> bool:
        return self.mem.has_passphrase

    @property
    def keyring_keeps_key(self) -> bool:
        return self.mem.keyring_keeps_key

    def disclosure(self):
        """What is sent to the LLM endpoint and when (settings only: no I/O)."""
        return self.mem.disclosure()

    def mark_disclosure_seen(self) -> None:
        """Remember that "what is sent" was shown when the LLM was first connected."""
        self._remember("llm_disclosure_seen")

    def decline_encryption_offer(self) -> None:
        """The user asked not to be offered encryption at start again."""
        self._remember("encryption_offer_declined")

    def _remember(self, flag: str) -> None:
        home = self.mem.home

        def work() -> None:
            on_disk = config.load_settings(home, apply_env=False)
            setattr(on_disk, flag, True)
            config.save_settings(home, on_disk)
            setattr(self.mem.settings, flag, True)

        self.writer.submit(work)

    def check_passphrase(self, secret: str, on_done: Callable[[bool], None]) -> None:
        """Argon2id takes a moment on purpose: checked off the UI thread."""
        self.reads.submit(lambda: self.mem.check_passphrase(secret), on_done)

    def set_passphrase(self, new: str, current: str | None, on_done: Callback = None,
                       on_error: Callback = None) -> None:
        self.reads.submit(lambda: self.mem.set_passphrase(new, current=current), on_done, on_error)

    def remove_passphrase(self, current: str, on_done: Callback = None, on_error: Callback = None) -> None:
        """The app lock goes with the passphrase (settings change: the lock and the menu follow)."""
        def done(_result=None) -> None:
            self.settings_changed.emit(self.mem.settings)
            self.changed.emit(Changes(settings=True))
            call_if_alive(on_done, None)

        self.reads.submit(lambda: self.mem.remove_passphrase(current=current), done, on_error)

    def new_recovery_key(self, on_done: Callable[[str], None], on_error: Callback = None) -> None:
        self.reads.submit(self.mem.new_recovery_key, on_done, on_error)

    def export_text(self, path: str, fmt: str, per_day: bool, lang: str, on_done: Callback = None,
                    on_error: Callback = None) -> None:
        self.reads.submit(lambda: self.mem.export_text(path, fmt=fmt, per_day=per_day, lang=lang), on_done,
                          on_error)

    def backup_now(self, on_done: Callback = None, on_error: Callback = None) -> None:
        self.writer.submit(self.mem.backup_now, on_done, on_error)

    def backups(self, on_done: Callable[[list[str]], None]) -> None:
        self.reads.submit(self.mem.backups, on_done)

    def _poked(self, on_done: Callback) -> Callable:
        """A write that queued a job: wake the writer, then report."""
        def done(result) -> None:
            self.writer.poke()
            call_if_alive(on_done, result)

        return done

    def load_day(self, day: date, on_done: Callable[[DayView], None]) -> None:
        def work() -> DayView:
            # memoir's letters are read in their own view (LetterDialog), not among the day's entries.
            entries = [e for e in self.mem.entries(day=day) if e.get("kind") != "letter"]
            jobs = self.mem.jobs(entry_ids=[e["id"] for e in entries]) if entries else []
            return build_day_view(day, entries, jobs)

        self.reads.submit(work, on_done)

    def days(self, on_done: Callable[[list[date]], None]) -> None:
        self.reads.submit(self.mem.days, on_done)

    def entry_day(self, memory: dict, on_done: Callable[[date | None], None]) -> None:
        """The day of a memory's source entry."""
        entry_id = memory.get("source_entry_id")

        def work() -> date | None:
            if entry_id is None:
                return None
            try:
                return datetime.fromisoformat(self.mem.entry(entry_id)["created_at"]).date()
            except KeyError:
                return None

        self.reads.submit(work, on_done)

    def retry_job(self, job_id: int, on_done: Callback = None) -> None:
        def done(ok: bool) -> None:
            self.writer.poke()
            call_if_alive(on_done, ok)

        self.writer.submit(lambda: self.mem.retry_job(job_id), done)

    # -- memories ---------------------------------------------------------------------------

    def memories(self, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(lambda: self.mem.get_all(include_invalid=True)["results"], on_done)

    def memories_by_id(self, ids, on_done: Callable[[dict[str, dict]], None]) -> None:
        """The named memories as they are now ({id: memory}; a missing id is absent)."""
        ids = list(ids)
        self.reads.submit(lambda: self.mem.get_many(ids), on_done)

    def search(self, query: str, on_done: Callable[[list[dict]], None], limit: int = 50) -> None:
        self.reads.submit(lambda: self.mem.search(query, limit=limit)["results"], on_done)

    def history(self, memory_id: str, on_done: Callable[[list[dict]], None], on_error: Callback = None) -> None:
        self.reads.submit(lambda: self.mem.history(memory_id), on_done, on_error)

    def add_memory(self, text: str, on_done: Callback = None, on_error: Callback = None, *, when=None,
                   entry_id: int | None = None) -> None:
        """The user's own memory (typed by hand, or "Remember this" on an entry, then linked to it):
        saved at once, no LLM; marked as the user's, like an edit."""
        self._write(lambda: self.mem.add(text, infer=False, timestamp=when, entry_id=entry_id), on_done, on_error)

    def update(self, memory_id: str, text: str, on_done: Callback = None, on_error: Callback = None) -> None:
        self._write(lambda: self.mem.update(memory_id, text), on_done, on_error)

    def forget(self, memory_id: str, on_done: Callback = None, on_error: Callback = None) -> None:
        self._write(lambda: self.mem.delete(memory_id), on_done, on_error)

    def restore(self, memory_id: str, on_done: Callback = None, on_error: Callback = None) -> None:
        self._write(lambda: self.mem.restore(memory_id), on_done, on_error)

    def proposals(self, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(self.mem.proposals, on_done)

    def resolve_proposal(self, proposal_id: int, accept: bool, on_done: Callback = None,
                         on_error: Callback = None) -> None:
        self._write(lambda: self.mem.resolve_proposal(proposal_id, accept), on_done, on_error)

    def tidy_proposals(self, on_done: Callable[[list], None], on_error: Callback = None, *,
                       include_user_edited: bool = False) -> None:
        """Merges of memories that say the same thing (a read: the similar groups, maybe an AI call)."""
        self.reads.submit(lambda: self.mem.tidy_proposals(include_user_edited=include_user_edited), on_done, on_error)

    def apply_tidy(self, proposal, on_done: Callback = None, on_error: Callback = None) -> None:
        def done(result) -> None:
            self.changed.emit(result.changes)
            call_if_alive(on_done, result)

        self.writer.submit(lambda: self.mem.apply_tidy(proposal), done, on_error)

    def undo_tidy(self, merged_id: str, on_done: Callback = None, on_error: Callback = None) -> None:
        def done(restored: list[str]) -> None:
            self.changed.emit(Changes.of(memories=[merged_id, *restored]))
            call_if_alive(on_done, restored)

        self.writer.submit(lambda: self.mem.undo_consolidation(merged_id), done, on_error)

    # -- other AI tools that connect to the journal (Settings → Connected apps) ---------------------

    def connected_apps(self, on_done: Callable[[list[dict]], None], on_error: Callback = None) -> None:
        self.reads.submit(self.mem.connected_apps, on_done, on_error)

    def app_log(self, on_done: Callable[[list[dict]], None], on_error: Callback = None, *,
                app: str | None = None, limit: int = 200) -> None:
        self.reads.submit(lambda: self.mem.app_log(app=app, limit=limit), on_done, on_error)

    def has_app_token(self, on_done: Callable[[bool], None], on_error: Callback = None) -> None:
        self.reads.submit(self.mem.has_app_token, on_done, on_error)

    def set_app_grant(self, name: str, grant: str, on: bool, on_done: Callback = None,
                      on_error: Callback = None) -> None:
        """grant: read_entries | write_directly (allowed: pause_app). on_done gets the app as stored."""
        self.writer.submit(lambda: self.mem.set_app_grant(name, grant, on), on_done, on_error)

    def pause_app(self, name: str, paused: bool, on_done: Callback = None, on_error: Callback = None) -> None:
        self.writer.submit(lambda: self.mem.pause_app(name, paused), on_done, on_error)

    def new_app_token(self, on_done: Callable[[str], None], on_error: Callback = None) -> None:
        """The network access key, returned this once (only its hash is kept); the previous one stops."""
        self.writer.submit(self.mem.new_app_token, on_done, on_error)

    def memory_suggestions(self, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(self.mem.memory_suggestions, on_done)

    def decide_suggestion(self, suggestion_id: int, accept: bool, on_done: Callback = None,
                          on_error: Callback = None) -> None:
        """Accepted, it becomes a memory (its card arrives through `changed`); rejected, nothing is kept."""
        self._write(lambda: self.mem.decide_suggestion(suggestion_id, accept), on_done, on_error)

    def _write(self, fn: Callable, on_done: Callback, on_error: Callback) -> None:
        def done(result) -> None:
            if isinstance(result, dict):
                self.changed.emit(Changes.from_dict(result.get("changes")))
            call_if_alive(on_done, result)

        self.writer.submit(fn, done, on_error)

    # -- status, stats, settings --------------------------------------------------------------

    def refresh_status(self) -> None:
        self.reads.submit(self.mem.status, self.status_changed.emit)

    def check_llm(self, on_done: Callback = None) -> None:
        """Ping the configured LLM; reports True/False, or None when none is configured."""
        def done(state) -> None:
            self.llm_reachable_changed.emit(state)
            call_if_alive(on_done, state)

        self.reads.submit(self.mem.check_llm, done)

    def stats(self, on_done: Callable[[StatsData], None]) -> None:
        self.reads.submit(lambda: build_stats(self.mem.metric_rows()), on_done)

    def test_connection(self, base_url: str, model: str, api_key: str | None,
                        on_done: Callable[[dict], None], on_error: Callable[[BaseException], None]) -> None:
        """Try unsaved connection settings (the settings dialog's Test button): see Memoir.test_llm."""
        self.reads.submit(lambda: self.mem.test_llm(base_url, model, api_key), on_done, on_error)

    def find_local_llms(self, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(self.mem.find_local_llms, on_done)

    def search_models(self, on_done: Callable[[dict], None]) -> None:
        self.reads.submit(self.mem.search_models, on_done)

    def install_search_model(self, key: str, on_done: Callback = None, on_error: Callback = None) -> threading.Event:
        """Download a search model; progress arrives as `model_progress`. Set the returned event to cancel
        (what was fetched is kept: the next try continues it)."""
        cancel = threading.Event()

        def work() -> str:
            return self.mem.install_search_model(
                key, progress=lambda done, total: self.model_progress.emit(key, done, total), cancelled=cancel.is_set)

        self.reads.submit(work, on_done, on_error)
        return cancel

    def remove_search_model(self, key: str, on_done: Callback = None, on_error: Callback = None) -> None:
        self.reads.submit(lambda: self.mem.remove_search_model(key), on_done, on_error)

    def api_key_present(self, on_done: Callable[[bool], None]) -> None:
        # The keyring can block (an unlock prompt), so even this read stays off the UI thread.
        self.reads.submit(lambda: bool(secrets.get_api_key()), on_done)

    def apply_settings(self, settings: config.Settings, api_key: str | None, remove_key: bool,
                       on_done: Callable[[str | None], None], on_error: Callback = None) -> None:
        """Save settings (file) and key (keyring), then reconfigure the running Memoir.

        `on_done` gets the key-storage message to show when the key could only be kept for
        this session, else None. Runs on the writer so it never swaps the LLM mid-job.
        """
        home = self.mem.home

        def work() -> tuple[str | None, config.Settings]:
            # Env overrides (MEMOIR_*) are for headless use: never persist them.
            on_disk = config.load_settings(home, apply_env=False)
            for key, value in settings.to_dict().items():
                if key != "version":
                    setattr(on_disk, key, value)
            message = None
            if remove_key:
                secrets.set_api_key(None)
                on_disk.llm_key_endpoint = ""
            elif api_key:
                stored = secrets.set_api_key(api_key)
                on_disk.llm_key_endpoint = secrets.endpoint_of(on_disk.llm_base_url)
                if stored.where == "session":
                    message = stored.message
            config.save_settings(home, on_disk)
            running = config.load_settings(home)
            rebuild = self.mem.reconfigure(running, rebuild_now=False)
            return message, running, rebuild

        def done(outcome) -> None:
            message, running, rebuild = outcome
            if rebuild:  # minutes to hours: after Save, a chunk at a time, the old model searching meanwhile
                self._build_next_index()
            self.settings_changed.emit(running)
            self.changed.emit(Changes(settings=True))
            self.writer.poke()
            self.refresh_status()
            self.check_llm()
            self.reads.submit(self.mem.warm_search)  # a reranker just chosen loads before it is needed
            call_if_alive(on_done, message)

        self.writer.submit(work, done, on_error)

    def _on_job_finished(self, result: dict) -> None:
        self.job_finished.emit(result)
        if result.get("state") == "done":
            self.changed.emit(Changes.from_dict((result.get("result") or {}).get("changes")))

    # -- reflection: On This Day, follow-ups, letters, the profile ----------------------------------

    def on_this_day(self, day: date, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(lambda: self.mem.on_this_day(day), on_done)

    def followups(self, on_done: Callable[[list[dict]], None]) -> None:
        """Due follow-ups: at once in their template words, then again once the companion has phrased
        the new ones (when one is connected; that can take a while, or not come at all)."""
        def offline(found: list[dict]) -> None:
            call_if_alive(on_done, found)
            if self.llm_configured and any(not f["phrased"] for f in found):
                self.reads.submit(lambda: self.mem.followups(), on_done)

        self.reads.submit(lambda: self.mem.followups(phrase=False), offline)

    def dismiss_followup(self, memory_id: str, on_done: Callback = None) -> None:
        self._write(lambda: self.mem.dismiss_followup(memory_id), on_done, None)

    def answer_followup(self, memory_id: str, entry_id: int | None, on_done: Callback = None) -> None:
        self._write(lambda: self.mem.answer_followup(memory_id, entry_id), on_done, None)

    def make_letters(self, on_done: Callback = None) -> None:
        """The letters of the weeks and months that ended (at start; the LLM may write them, so on the
        reads pool: their writes are short and take the write lock themselves)."""
        def done(made: list[dict]) -> None:
            if made:
                self.changed.emit(Changes.of(entries=[e["id"] for e in made]))
            call_if_alive(on_done, made)

        self.reads.submit(self.mem.make_letters, done)

    def regenerate_letter(self, entry_id: int, on_done: Callback = None, on_error: Callback = None) -> None:
        def done(entry: dict) -> None:
            self.changed.emit(Changes.of(entries=[entry_id]))
            call_if_alive(on_done, entry)

        self.reads.submit(lambda: self.mem.regenerate_letter(entry_id), done, on_error)

    def letters(self, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(self.mem.letters, on_done)

    def entry(self, entry_id: int, on_done: Callable[[dict], None], on_error: Callback = None) -> None:
        self.reads.submit(lambda: self.mem.entry(entry_id), on_done, on_error)

    def profile(self, on_done: Callable[[list[dict]], None]) -> None:
        self.reads.submit(self.mem.profile, on_done)

    def set_remembered(self, category: str, remember: bool, on_done: Callback = None) -> None:
        self._write(lambda: self.mem.set_remembered(category, remember), on_done, None)

    def forget_category(self, category: str, on_done: Callback = None) -> None:
        self._write(lambda: self.mem.forget_category(category), on_done, None)

    def restore_memories(self, memory_ids: list[str], on_done: Callback = None) -> None:
        self._write(lambda: self.mem.restore_memories(memory_ids), on_done, None)

    def journal_stats(self, on_done: Callable[[JournalStats], None]) -> None:
        def work() -> JournalStats:
            mems = self.mem.get_all(include_invalid=True)["results"]
            histories = self.mem.history_rows()
            return build_journal_stats(self.mem.entries(), mems, histories, today=date.today(),
                                       moods=self.mem.moods())

        self.reads.submit(work, on_done)

    # -- graph ------------------------------------------------------------------------------------

    def graph_snapshot(self, on_done: Callable, on_error: Callback = None, user_id: str = "me") -> None:
        self.reads.submit(lambda: load_snapshot(self.mem.graph_store, user_id), on_done, on_error)

    def node_detail(self, node_id: int, on_done: Callable, on_error: Callback = None, user_id: str = "me") -> None:
        self.reads.submit(lambda: self.mem.graph_node(node_id, user_id=user_id), on_done, on_error)
