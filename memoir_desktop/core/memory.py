"""`Memoir`: the one public entry the GUI, the CLI, the MCP server and the tests drive (mem0's names
kept). It wires the parts and delegates, a line a method; each operation lives with its data:

    entries            journal.py (Journal)            memories    memory_actions.py, store.py
    the companion      companion.py                    jobs        jobs.py (the only writer of job rows)
    reflection         reflection_ops.py           keys        vault.py (JournalKey)
    in and out         in_and_out.py                   models      model_switch.py, search_options.py
    other programs     outside_changes.py, connected_apps.py, app_suggestions.py, app_access.py

Threading rule: reads may run on any thread; a write takes the write lock for one short transaction;
jobs run one at a time. `journal()` commits an entry and its job, never waiting on the LLM."""

from __future__ import annotations

import threading
from pathlib import Path

from memoir_desktop.core import config

from memoir_desktop.core.llm import disclosure

from memoir_desktop.core.keys import vault
from memoir_desktop.core import sync as e2e_sync
from memoir_desktop.core.apps.connected_apps import ConnectedApps
from memoir_desktop.core.archive import backup
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.companion.turns import Companion, llm_message
from memoir_desktop.core.db import open_database, origin_of
from memoir_desktop.core.delegation import via
from memoir_desktop.core.archive.service import InAndOut
from memoir_desktop.core.jobs.queue import JobQueue, JobRunner
from memoir_desktop.core.journal.entries import Journal
from memoir_desktop.core.lexical import LexicalIndexes
from memoir_desktop.core.llm import Gate, connection
from memoir_desktop.core.llm.connection import Connection
from memoir_desktop.core.llm.probe import ProbeCache
from memoir_desktop.core.memories.actions import MemoryActions
from memoir_desktop.core.metrics import MetricsRecorder
from memoir_desktop.core.search_models.switcher import ModelSwitcher
from memoir_desktop.core.storage.outside_changes import ChangeFeed, IndexFollower
from memoir_desktop.core.pipeline.cascade import CascadeContext
from memoir_desktop.core.pipeline.graph import GraphMemory
from memoir_desktop.core.pipeline.handlers import JobHandlers
from memoir_desktop.core.reflection import letters
from memoir_desktop.core.reflection.service import Reflection
from memoir_desktop.core.search import Retriever
from memoir_desktop.core.search.episodes import EpisodeIndex
from memoir_desktop.core.search.field import SearchField
from memoir_desktop.core.search_models.embedder import Embedder
from memoir_desktop.core.search_models.options import SearchOptions
from memoir_desktop.core.storage.graph_store import SQLiteGraphStore
from memoir_desktop.core.storage.models import pk
from memoir_desktop.core.storage.sealed_vectors import AnyVectorIndex, SealedVectorIndex
from memoir_desktop.core.storage.store import MemoryStore
from memoir_desktop.core.storage.vectors import VectorIndex
from memoir_desktop.core.jobs.upkeep import Upkeep


class Memoir:
    def __init__(self, home: Path, settings: config.Settings, *, reconcile: bool = True,
                 key: vault.JournalKey | None = None):
        self.home, self.settings, self.key = home, settings, key or vault.JournalKey(None)
        self.engine = open_database(home / "memoir.db", self.key.data_key)
        self.last_backup = backup.backup_if_due(home, settings.backups_keep, self.key.data_key)
        self.metrics = MetricsRecorder(self.engine)
        # An encrypted journal keeps its vectors in the encrypted database, never in plain files.
        self.vectors: AnyVectorIndex = (VectorIndex(home / "qdrant") if self.key.data_key is None
                                        else SealedVectorIndex(self.engine))
        self.lexical = LexicalIndexes()  # one BM25 cache for memories and entries
        embedder = Embedder(settings.embed_model, metric_sink=self.metrics.record)
        self.store = MemoryStore(self.engine, self.vectors, embedder, self.lexical)
        self.episodes = EpisodeIndex(self.engine, self.vectors, self.store.collections, self.lexical)
        # 0 = the embedding model's calibrated merge threshold (pipeline/graph.py MERGE_THRESHOLDS).
        self.graph = GraphMemory(SQLiteGraphStore(self.engine), embedder,
                                 merge_threshold=settings.graph_merge_threshold or None)
        self.retriever = Retriever(self.engine, self.store, self.episodes,
                                   graph_search=lambda user_id, q, limit: self.graph.search(user_id, q, limit))
        # What another process writes (the MCP server beside the app): followed before each search,
        # and read separately by the screens (outside_changes).
        self.follower = IndexFollower(ChangeFeed(self.engine, origin_of(self.engine)), self.store, self.episodes,
                                      self.graph.store)
        self.retriever.before_search = self.follower.catch_up
        self._screen_feed = ChangeFeed(self.engine, origin_of(self.engine))
        self.jobs_queue = JobQueue(self.engine)
        self.probe_cache = ProbeCache(home / "llm_modes.json")
        self.llm = self._make_llm()
        # Held only for short transactions (a job's apply phase, a user's own action): see jobs.py.
        self._write_lock = threading.Lock()
        llm, cfg = (lambda: self.llm), (lambda: self.settings)
        handlers = JobHandlers(self.engine, self.store, self.episodes, self.graph, self.metrics, llm=llm,
                               settings=cfg, threshold=lambda: self.upkeep.tidy_threshold())
        self.runner = JobRunner(self.jobs_queue, self._write_lock, handlers.table(), around=handlers.around,
                                describe_unavailable=llm_message)
        self.journal_ = Journal(self.engine, self.jobs_queue, self._write_lock,
                                CascadeContext(self.store, self.episodes, self.graph), letter_covers=letters.covers)
        self.memories = MemoryActions(self.engine, self.store, self.journal_, self._write_lock, self.retriever,
                                      self.metrics, llm=llm, run_job=self.runner.run)
        self.reflection = Reflection(self.engine, home, self.store, self.journal_, self.jobs_queue, self._write_lock,
                                     llm=llm, settings=cfg)
        self.field = SearchField(self.retriever, self.journal_)
        self.companion = Companion(self.engine, self.journal_, self.retriever, self.metrics, llm=llm, settings=cfg,
                                   followups=self.reflection.followups)
        self.in_and_out = InAndOut(self.engine, home, self.journal_, self.jobs_queue, settings=cfg,
                                   data_key=self.key.data_key, graph_store=self.graph.store, lexical=self.lexical,
                                   reconcile=lambda: self.reconcile())
        self.switcher = ModelSwitcher(self.engine, self.vectors, self.store, self.graph, self._write_lock,
                                      self.metrics, settings=cfg, persist=self._persist)
        self.search_options = SearchOptions(self.engine, self.retriever.context_rerank, llm=llm, settings=cfg,
                                            switch_state=self.switcher.state)
        self.search_options.configure()
        self.connection = Connection(llm=llm, settings=cfg, probe_cache=self.probe_cache)
        self.apps = ConnectedApps(self.engine)
        self.upkeep = Upkeep(self.engine, self.store, self.jobs_queue, self.runner, self._write_lock, self.metrics,
                             llm=llm, settings=cfg, switch_state=self.switcher.state, home=home)
        self.resumed_jobs = self.jobs_queue.resume_interrupted()
        self.index_report: dict | None = None
        if reconcile:
            self.reconcile()

    # -- lifecycle --------------------------------------------------------------------

    @classmethod
    def open(cls, home=None, *, reconcile: bool = True, passphrase: str | None = None,
             encrypt: bool = True, ask_passphrase: bool | None = None, **overrides) -> Memoir:
        """Open (or create) the journal at `home`. An encrypted journal opens with the keyring, or
        with `passphrase` / MEMOIR_PASSPHRASE (or its recovery key); a new journal is encrypted
        unless `encrypt` is False. `ask_passphrase` (default: the app-lock setting) refuses the
        keyring. Raises crypto.WrongPassphrase / PassphraseNeeded before anything is changed."""
        path = config.resolve_home(home)
        settings = config.load_settings(path, overrides=overrides)
        ask = settings.lock_at_start if ask_passphrase is None else ask_passphrase
        journal_key = vault.open_key(path, passphrase=passphrase, encrypt_new=encrypt, ask_passphrase=ask)
        return cls(path, settings, reconcile=reconcile, key=journal_key)

    def close(self) -> None:
        self.metrics.flush()
        self.vectors.close()
        self.engine.dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    embedder = property(lambda self: self.store.embedder, lambda self, e: self.switcher.use(e))
    index_switch = property(lambda self: self.switcher.switch)  # a new embedding model's index being built
    switch_progress = property(lambda self: self.switcher.progress)

    def _make_llm(self) -> Gate:
        """Every feature holds the gate, never the client: each request is cleared there (core/llm/gate.py)."""
        return connection.make_gate(self.settings, self.engine, self.metrics.record, self.probe_cache)

    def _persist(self, **values) -> None:
        """Change settings both here and in the settings file (env overrides are never written)."""
        config.persist(self.home, self.settings, **values)

    def reconfigure(self, settings: config.Settings, *, rebuild_now: bool = True) -> bool:
        """Apply new settings. A changed embedding model gets its index built beside the one in use
        (now, or by the caller's `step_embedder_switch` loop when `rebuild_now` is False) and is used
        once that index is complete. True when such a build was started."""
        chosen = settings.embed_model
        settings.embed_model, settings.embed_model_next = self.settings.embed_model, self.settings.embed_model_next
        self.settings = settings
        self.llm = self._make_llm()
        self.search_options.configure()
        self.graph.merge_threshold = settings.graph_merge_threshold or None
        return self.switcher.choose(chosen, rebuild_now=rebuild_now)

    def reconcile(self, progress=None, force: bool = False) -> dict:
        """Bring the derived vector index in line with SQLite (rebuild if missing/stale/foreign)."""
        self.index_report = self.store.reconcile(progress=progress, force=force)
        # The entries' index is the second pass a rebuild shows (10 years of entries take a while).
        self.index_report["episodes"] = self.episodes.reconcile(progress=progress, force=force)
        return self.index_report

    def outside_changes(self) -> Changes:
        """What other processes (the MCP server, a memoir-cli) changed since the last call, with this
        process's indexes already following it: the screens refresh by it."""
        self.follower.catch_up()
        return self._screen_feed.read().changes()

    status = via("upkeep", Upkeep.status)

    # -- keys (vault.JournalKey) ----------------------------------------------------------

    encrypted = property(lambda self: self.key.encrypted)
    has_passphrase = property(lambda self: self.key.has_passphrase)
    keyring_keeps_key = property(lambda self: self.key.keyring_keeps_key)
    set_passphrase, new_recovery_key = via("key", vault.JournalKey.set_passphrase), \
        via("key", vault.JournalKey.new_recovery_key)
    check_passphrase = via("key", vault.JournalKey.check_passphrase)
    take_recovery_key = via("key", vault.JournalKey.take_recovery_key)

    def remove_passphrase(self, *, current: str) -> None:
        """The app lock goes with the passphrase: with none, it would only open with the recovery key."""
        self.key.remove_passphrase(current=current)
        self._persist(lock_at_start=False, lock_idle_minutes=0)

    # -- the LLM connection (llm/connection.py) and search models (search_options.py) -------

    llm_configured = property(lambda self: bool(self.llm.configured))
    llm_mode = property(lambda self: self.llm.capabilities.mode if self.llm.capabilities else None)
    check_llm, test_llm = via("connection", Connection.check_llm), via("connection", Connection.test_llm)
    find_local_llms = staticmethod(connection.find_local)

    def disclosure(self) -> disclosure.Disclosure:
        """What is sent to the LLM endpoint, and when (nothing when no LLM is set)."""
        return disclosure.describe(self.settings.llm_base_url, self.llm_configured, self.settings)

    search_models, warm_search = via("search_options", SearchOptions.search_models), \
        via("search_options", SearchOptions.warm_search)
    install_search_model = via("search_options", SearchOptions.install_search_model)
    remove_search_model = via("search_options", SearchOptions.remove_search_model)
    switch_embedder, step_embedder_switch = via("switcher", ModelSwitcher.start), via("switcher", ModelSwitcher.step)
    cancel_embedder_switch = via("switcher", ModelSwitcher.cancel)

    # -- the journal (journal.py) and the companion (companion.py) ----------------------------

    def journal(self, text: str, *, user_id: str = "me", timestamp=None, role: str = "user",
                source: str = "journal", private: bool = False) -> int:
        """Commit the entry (first, before anything else) and queue its memorize job. A private
        entry is only journaled: never sent to an LLM, found by local search alone."""
        return pk(self.journal_.write(text, user_id=user_id, timestamp=timestamp, role=role, source=source,
                                      private=private, index_now=private or not self.llm.configured).entry)

    entries, entry, days = via("journal_", Journal.entries), via("journal_", Journal.entry), via("journal_", Journal.days)
    edit_entry, move_entry = via("journal_", Journal.edit), via("journal_", Journal.move)
    set_entry_private = via("journal_", Journal.set_private)
    delete_entry, restore_entry = via("journal_", Journal.trash), via("journal_", Journal.restore)
    purge_preview, purge_entry = via("journal_", Journal.purge_preview), via("journal_", Journal.purge)
    trash, entry_history = via("journal_", Journal.in_trash), via("journal_", Journal.history)

    find, search_entries = via("field", SearchField.find), via("field", SearchField.search_entries)

    chat, begin_chat = via("companion", Companion.chat), via("companion", Companion.begin_chat)
    answer_chat, reply_to = via("companion", Companion.answer_chat), via("companion", Companion.reply_to)
    context_for = via("companion", Companion.context_for)

    # -- memories: mem0's API, the user's own actions, what waits for the user (memory_actions.py) --

    add, search, get = via("memories", MemoryActions.add), via("memories", MemoryActions.search), \
        via("memories", MemoryActions.get)
    get_many, get_all = via("memories", MemoryActions.get_many), via("memories", MemoryActions.get_all)
    update, history = via("memories", MemoryActions.update), via("memories", MemoryActions.history)
    delete, restore = via("memories", MemoryActions.delete), via("memories", MemoryActions.restore)
    forget_category = via("memories", MemoryActions.forget_category)
    restore_memories = via("memories", MemoryActions.restore_memories)
    proposals, resolve_proposal = via("memories", MemoryActions.proposals), \
        via("memories", MemoryActions.resolve_proposal)
    decide_suggestion = via("memories", MemoryActions.decide_suggestion)

    # -- other AI tools connected over MCP (connected_apps.py) ----------------------------------

    connected_apps, app_log = via("apps", ConnectedApps.connected_apps), via("apps", ConnectedApps.app_log)
    set_app_grant, pause_app = via("apps", ConnectedApps.set_app_grant), via("apps", ConnectedApps.pause_app)
    memory_suggestions = via("apps", ConnectedApps.memory_suggestions)
    new_app_token, has_app_token = via("apps", ConnectedApps.new_app_token), via("apps", ConnectedApps.has_app_token)

    # -- upkeep: jobs, merging similar memories, the running summary (upkeep.py) ----------------

    jobs, retry_job = via("upkeep", Upkeep.jobs), via("upkeep", Upkeep.retry_job)
    process_jobs, summary = via("upkeep", Upkeep.process_jobs), via("upkeep", Upkeep.summary)
    consolidate, undo_consolidation = via("upkeep", Upkeep.consolidate), via("upkeep", Upkeep.undo_consolidation)
    tidy_proposals, apply_tidy = via("upkeep", Upkeep.tidy_proposals), via("upkeep", Upkeep.apply_tidy)

    # -- what the screens read: the graph, metrics, reflection (reflection_ops.py) ------------

    graph_store = property(lambda self: self.graph.store, doc="The graph's store (viewmodels.graph_view).")

    def graph_node(self, node_id: int, *, user_id: str = "me") -> dict | None:
        return self.graph.node_detail(user_id, node_id)

    def metric_rows(self):
        return self.metrics.rows()

    moods, history_rows = via("reflection", Reflection.moods), via("reflection", Reflection.history_rows)
    on_this_day, followups = via("reflection", Reflection.on_this_day), via("reflection", Reflection.followups)
    dismiss_followup = via("reflection", Reflection.dismiss_followup)
    answer_followup = via("reflection", Reflection.answer_followup)
    make_letters, letters = via("reflection", Reflection.make_letters), via("reflection", Reflection.letters)
    regenerate_letter = via("reflection", Reflection.regenerate_letter)
    profile, set_remembered = via("reflection", Reflection.profile), via("reflection", Reflection.set_remembered)

    # -- in and out (in_and_out.py) -----------------------------------------------------------

    export, import_ = via("in_and_out", InAndOut.export), via("in_and_out", InAndOut.import_)
    import_file, import_dayone = via("in_and_out", InAndOut.import_file), via("in_and_out", InAndOut.import_dayone)
    batch_progress = via("in_and_out", InAndOut.batch_progress)
    cancel_batch, resume_batch = via("in_and_out", InAndOut.cancel_batch), via("in_and_out", InAndOut.resume_batch)
    export_text = via("in_and_out", InAndOut.export_text)
    backup_now, backups = via("in_and_out", InAndOut.backup_now), via("in_and_out", InAndOut.backups)

    # -- one journal on every computer: end-to-end encrypted sync (core/sync/) --------------------

    @classmethod
    def join(cls, url: str, passphrase: str, *, home=None, progress=None, **overrides) -> Memoir:
        """Open a journal kept in a sync place on this computer for the first time, with its passphrase."""
        return e2e_sync.join(cls, url, passphrase, home=home, progress=progress, **overrides)

    sync, sync_status, dismiss_sync_notice = e2e_sync.run, e2e_sync.status, e2e_sync.dismiss
