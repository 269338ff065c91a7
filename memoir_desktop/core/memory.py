"""`Memoir`: opens a journal, wires its parts and closes it. The parts ARE the API: callers (the GUI, the
CLI, the MCP server, the tests) use them directly, with their real signatures:

    mem.journal        journal/entries.py        entries: write, edit, trash, restore, purge, back-date
    mem.search_field   journal/search_field.py   the search field: entries and memories for a query
    mem.memories       memories/actions.py       memories: mem0's calls, the user's own actions, tidying
    mem.companion      companion/turns.py        the answer to a journal line and the turn around it
    mem.reflection     reflection/service.py     On This Day, follow-ups, letters, the profile
    mem.archive        archive/service.py        exports, imports, backups
    mem.keys           keys/vault.py             encryption, passphrase, recovery key
    mem.connection     llm/connection.py         the LLM as the user connects it
    mem.models         model_choice/options.py   the search and reading models the user chooses
    mem.jobs           jobs/service.py           what waits and why; running the queue
    mem.sync           sync/service.py           one journal on every computer
    mem.apps           apps/connected_apps.py    other AI tools connected over MCP
    mem.graph          pipeline/graph.py         the memory graph (Mem0^g)

mem0's own names (`add`, `search`, `get`, `get_all`, `update`, `delete`, `history`) are written out here
as a public contract; nothing else is forwarded.

Threading rule: reads may run on any thread; a write takes the write lock for one short transaction;
jobs run one at a time. `journal.write()` commits an entry and its job, never waiting on the LLM."""

from __future__ import annotations

import threading
from pathlib import Path

from memoir_desktop.core import config
from memoir_desktop.core.apps.connected_apps import ConnectedApps
from memoir_desktop.core.archive import backup, conversion
from memoir_desktop.core.archive.service import Archive
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.companion.turns import Companion, llm_message
from memoir_desktop.core.db import DatabaseCorrupt, open_database, origin_of, reading
from memoir_desktop.core.jobs.queue import JobQueue, JobRunner
from memoir_desktop.core.jobs.service import Jobs
from memoir_desktop.core.journal.entries import Journal, JournalBusy
from memoir_desktop.core.journal.search_field import SearchField
from memoir_desktop.core.keys.vault import JournalKey
from memoir_desktop.core.lexical import LexicalIndexes
from memoir_desktop.core.llm import Gate, connection, shared_settings
from memoir_desktop.core.llm.connection import Connection
from memoir_desktop.core.llm.probe import ProbeCache
from memoir_desktop.core.memories.actions import Memories
from memoir_desktop.core.metrics import MetricsRecorder
from memoir_desktop.core.model_choice.options import SearchModels
from memoir_desktop.core.model_choice.switcher import ModelSwitcher
from memoir_desktop.core.pipeline.cascade import CascadeContext
from memoir_desktop.core.pipeline.graph import GraphMemory
from memoir_desktop.core.pipeline.handlers import JobHandlers
from memoir_desktop.core.reflection import letters
from memoir_desktop.core.reflection.service import Reflection
from memoir_desktop.core.search import Retriever
from memoir_desktop.core.search.episodes import EpisodeIndex
from memoir_desktop.core.search_models.embedder import Embedder
from memoir_desktop.core.storage.graph_store import SQLiteGraphStore
from memoir_desktop.core.storage.outside_changes import ChangeFeed, IndexFollower
from memoir_desktop.core.storage.sealed_vectors import AnyVectorIndex, SealedVectorIndex
from memoir_desktop.core.storage.store import MemoryStore
from memoir_desktop.core.storage.vectors import IndexBusy, VectorIndex
from memoir_desktop.core.sync import engine as sync_rounds
from memoir_desktop.core.sync.service import Sync

# What opening a journal may raise besides the key's errors (keys/crypto.py): the UI, the CLI and the MCP
# server catch them from here, never from the database or storage modules.
__all__ = ["DatabaseCorrupt", "IndexBusy", "Memoir"]


class Memoir:
    def __init__(self, home: Path, settings: config.Settings, *, reconcile: bool = True,
                 key: JournalKey | None = None):
        self.home, self.settings = home, settings
        self.keys: JournalKey = key or JournalKey(None)
        self.keys.after_passphrase_removed = lambda: self._persist(lock_at_start=False, lock_idle_minutes=0)
        self.engine = open_database(home / "memoir.db", self.keys.data_key)
        self.last_backup = backup.backup_if_due(home, settings.backups_keep, self.keys.data_key)
        self.metrics = MetricsRecorder(self.engine)
        # An encrypted journal keeps its vectors in the encrypted database, never in plain files.
        try:
            self.vectors: AnyVectorIndex = (VectorIndex(home / "qdrant") if self.keys.data_key is None
                                            else SealedVectorIndex(self.engine))
        except JournalBusy:
            self.engine.dispose()
            raise
        except IndexBusy as exc:  # said as the journal's, so no caller has to reach into storage for it
            self.engine.dispose()
            raise JournalBusy(str(exc)) from exc
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
        self.job_queue = JobQueue(self.engine)
        self.probe_cache = ProbeCache(home / "llm_modes.json")
        self.llm = self._make_llm()
        # Held only for short transactions (a job's apply phase, a user's own action): see jobs/queue.py.
        self._write_lock = threading.Lock()
        llm, cfg = (lambda: self.llm), (lambda: self.settings)
        handlers = JobHandlers(self.engine, self.store, self.episodes, self.graph, self.metrics, llm=llm,
                               settings=cfg, threshold=lambda: self.memories.tidy_threshold())
        self.runner = JobRunner(self.job_queue, self._write_lock, handlers.table(), around=handlers.around,
                                describe_unavailable=llm_message)

        # -- the parts --------------------------------------------------------------------------
        self.journal = Journal(self.engine, self.job_queue, self._write_lock,
                               CascadeContext(self.store, self.episodes, self.graph), letter_covers=letters.covers,
                               llm_ready=lambda: bool(self.llm.configured))
        self.memories = Memories(self.engine, self.store, self.journal, self._write_lock, self.retriever,
                                 self.metrics, self.job_queue, llm=llm, run_job=self.runner.run, settings=cfg)
        self.reflection = Reflection(self.engine, home, self.store, self.journal, self.job_queue, self._write_lock,
                                     llm=llm, settings=cfg)
        self.search_field = SearchField(self.retriever, self.journal)
        self.companion = Companion(self.engine, self.journal, self.retriever, self.metrics, llm=llm, settings=cfg,
                                   followups=self.reflection.followups)
        self.archive = Archive(self.engine, home, self.journal, self.job_queue, settings=cfg,
                               data_key=self.keys.data_key, graph_store=self.graph.store, lexical=self.lexical,
                               reconcile=lambda: self.reconcile())
        switcher = ModelSwitcher(self.engine, self.vectors, self.store, self.graph, self._write_lock,
                                 self.metrics, settings=cfg, persist=self._persist)
        self.models = SearchModels(self.engine, self.retriever.context_rerank, switcher, llm=llm, settings=cfg)
        self.models.configure()
        self.connection = Connection(llm=llm, settings=cfg, probe_cache=self.probe_cache)
        self.apps = ConnectedApps(self.engine)
        self.jobs = Jobs(self.job_queue, self.runner, self.metrics, store=self.store, llm=llm, settings=cfg,
                         switch_state=switcher.state, home=home, idle=handlers.idle)
        self.sync = Sync(self.engine, home, settings=cfg, keys=self.keys, journal=self.journal, store=self.store,
                         episodes=self.episodes, graph_store=self.graph.store,
                         llm_ready=lambda: bool(self.llm.configured), use_settings=self.reconfigure)
        self.keys.after_passphrase_changed = self.sync.passphrase_changed
        # The journal's AI settings: taken here when this computer has none of its own, then this
        # computer's (when it has an AI) made the journal's, in that order (a change another computer
        # sent is taken before an older one here could overwrite it).
        self.sync.take_settings()
        shared_settings.publish(self.engine, home)

        self.resumed_jobs = self.job_queue.resume_interrupted()
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
        journal_key = conversion.open_key(path, passphrase=passphrase, encrypt_new=encrypt, ask_passphrase=ask)
        return cls(path, settings, reconcile=reconcile, key=journal_key)

    @classmethod
    def join(cls, url: str, passphrase: str, *, home=None, progress=None, **overrides) -> Memoir:
        """Open a journal kept in a sync place on this computer for the first time, with its passphrase."""
        return sync_rounds.join(cls, url, passphrase, home=home, progress=progress, **overrides)

    def close(self) -> None:
        self.metrics.flush()
        self.vectors.close()
        self.engine.dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _make_llm(self) -> Gate:
        """Every feature holds the gate, never the client: each request is cleared there (core/llm/gate.py)."""
        return connection.make_gate(self.settings, self.engine, self.metrics.record, self.probe_cache)

    def _persist(self, **values) -> None:
        """Change settings both here and in the settings file (env overrides are never written)."""
        config.persist(self.home, self.settings, **values)

    def reconfigure(self, settings: config.Settings, *, rebuild_now: bool = True) -> bool:
        """Apply new settings. A changed embedding model gets its index built beside the one in use
        (now, or by the caller's `models.step_switch` loop when `rebuild_now` is False) and is used
        once that index is complete. True when such a build was started."""
        chosen = settings.embed_model
        settings.embed_model, settings.embed_model_next = self.settings.embed_model, self.settings.embed_model_next
        self.settings = settings
        self.llm = self._make_llm()
        self.models.configure()
        self.graph.merge_threshold = settings.graph_merge_threshold or None
        shared_settings.publish(self.engine, self.home)  # what the diarist saved here becomes the journal's
        return self.models.switcher.choose(chosen, rebuild_now=rebuild_now)

    def reconcile(self, progress=None, force: bool = False) -> dict:
        """Bring the derived vector index in line with SQLite (rebuild if missing/stale/foreign)."""
        self.index_report = self.store.reconcile(progress=progress, force=force)
        # The entries' index is the second pass a rebuild shows (10 years of entries take a while).
        self.index_report["episodes"] = self.episodes.reconcile(progress=progress, force=force)
        return self.index_report

    @staticmethod
    def read_only():
        """A context in which this thread's database connections cannot write (the UI's reads pool):
        a write attempted there raises, so none slips onto a pool that runs beside the writer."""
        return reading()

    def outside_changes(self) -> Changes:
        """What other processes (the MCP server, a memoir-cli) changed since the last call, with this
        process's indexes already following it: the screens refresh by it."""
        self.follower.catch_up()
        return self._screen_feed.read().changes()

    # -- mem0's API, a public contract (memories/actions.py does the work) -----------------------

    def add(self, messages, *, user_id: str = "me", metadata: dict | None = None, infer: bool = True,
            timestamp=None, memory_type: str | None = None, entry_id: int | None = None) -> dict:
        """Remember `messages` (a text or a list of {role, content}): through the write path (`infer`),
        or each as a memory verbatim."""
        return self.memories.add(messages, user_id=user_id, metadata=metadata, infer=infer, timestamp=timestamp,
                                 memory_type=memory_type, entry_id=entry_id).as_mem0()

    def search(self, query: str, *, user_id: str = "me", limit: int = 10, filters: dict | None = None,
               now=None) -> dict:
        """Memories for `query`, best first: {"results": [...]}."""
        return self.memories.search(query, user_id=user_id, limit=limit, filters=filters, now=now)

    def get(self, memory_id: str) -> dict:
        return self.memories.get(memory_id)

    def get_all(self, *, user_id: str = "me", include_invalid: bool = False) -> dict:
        return self.memories.get_all(user_id=user_id, include_invalid=include_invalid)

    def update(self, memory_id: str, text: str) -> dict:
        """The user's own correction of a memory (its history keeps the old text); the memory as it is now."""
        return self.memories.update(memory_id, text).memory

    def delete(self, memory_id: str) -> dict:
        """Forget a memory (a soft invalidation: restorable, its history kept); the memory as it is now."""
        return self.memories.delete(memory_id).memory

    def history(self, memory_id: str) -> list[dict]:
        return self.memories.history(memory_id)
