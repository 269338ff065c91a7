"""`Memoir`: the facade the GUI, the CLI and the tests all drive (mem0-compatible names).

Threading rule: reads (search, get, history, chat's retrieval) may run on any thread;
writes that change memories go through `process_jobs`, which one writer at a time drains
(a lock enforces it). `journal()` only commits an entry and a job row: it never waits
on the LLM or the embedder.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from datetime import date, datetime, timedelta
from pathlib import Path

from sqlmodel import Session, col, select

from memoir_desktop.core import (
    app_access,
    app_suggestions,
    backup,
    config,
    connected_apps,
    crypto,
    disclosure,
    model_catalog,
    prompts,
    secrets,
    temporal,
    transfer,
    vault,
)
from memoir_desktop.core import sync as e2e_sync
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.db import checkpoint, open_database, origin_of
from memoir_desktop.core.embedder import Embedder
from memoir_desktop.core.graph_store import SQLiteGraphStore
from memoir_desktop.core.importers.dayone import DayOneError, read_dayone_export
from memoir_desktop.core.index_switch import IndexSwitch, SwitchFailed
from memoir_desktop.core.inputs import InvalidInput, NotFound, clean_reply, clean_text, parse_time
from memoir_desktop.core.jobs import JobQueue, JobRunner, Prepared, job_dict
from memoir_desktop.core.journal import Journal
from memoir_desktop.core.lexical import LexicalIndexes
from memoir_desktop.core.llm import (
    Gate,
    LLMBadReply,
    LLMClient,
    LLMError,
    LLMUnavailable,
    PrivacyLens,
    PrivateRefused,
    servers,
)
from memoir_desktop.core.llm.modes import MODE_LABELS
from memoir_desktop.core.llm.probe import ProbeCache
from memoir_desktop.core.metrics import MetricsRecorder
from memoir_desktop.core.outside_changes import ChangeFeed, IndexFollower
from memoir_desktop.core.models import Entry, EntryHistory, History, Job, Memory, Proposal, Summary, now, pk
from memoir_desktop.core.pipeline import consolidate as consolidation
from memoir_desktop.core.pipeline import tidy
from memoir_desktop.core.pipeline.cascade import CascadeContext
from memoir_desktop.core.pipeline.extraction import fact_span, shape_fact
from memoir_desktop.core.pipeline.graph import GraphMemory
from memoir_desktop.core.pipeline.memorize import (
    WriteContext,
    latest_summary,
    prepare_entry_reread,
    prepare_memorize,
    recent_context,
)
from memoir_desktop.core.pipeline.summary import refresh_summary
from memoir_desktop.core.reflection import categories, followups, letters
from memoir_desktop.core.reflection.on_this_day import on_this_day
from memoir_desktop.core.sealed_vectors import AnyVectorIndex, SealedVectorIndex
from memoir_desktop.core.search import Retriever, assemble, route
from memoir_desktop.core.search.episodes import EpisodeIndex
from memoir_desktop.core.store import Change, MemoryStore, memory_dict
from memoir_desktop.core.text_export import export_text
from memoir_desktop.core.vectors import VectorIndex

log = logging.getLogger(__name__)

PROFILE_SIZE = 8  # hot-path memories always in context: user-typed/edited first, then the freshest


class Memoir:
    def __init__(self, home: Path, settings: config.Settings, *, reconcile: bool = True,
                 key: vault.JournalKey | None = None):
        self.home = home
        self.settings = settings
        self.key = key or vault.JournalKey(None)
        data_key = self.key.data_key
        self.engine = open_database(home / "memoir.db", data_key)
        self.last_backup = backup.backup_if_due(home, settings.backups_keep, data_key)
        self.metrics = MetricsRecorder(self.engine)
        # An encrypted journal keeps its vectors in the encrypted database, never in plain files.
        self.vectors: AnyVectorIndex = (
            VectorIndex(home / "qdrant") if data_key is None else SealedVectorIndex(self.engine))
        self.embedder = Embedder(settings.embed_model, metric_sink=self.metrics.record)
        self.lexical = LexicalIndexes()  # one BM25 cache for memories and entries
        self.store = MemoryStore(self.engine, self.vectors, self.embedder, self.lexical)
        self.episodes = EpisodeIndex(self.engine, self.vectors, self.store.collections, self.lexical)
        # 0 = the embedding model's calibrated merge threshold (pipeline/graph.py MERGE_THRESHOLDS).
        self.graph = GraphMemory(SQLiteGraphStore(self.engine), self.embedder,
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
        self.retriever.context_rerank.configure(settings.search_reranker, lambda: self.llm)
        # Held only for short transactions (a job's apply phase, a user's own action): see jobs.py.
        self._write_lock = threading.Lock()
        self.runner = JobRunner(self.jobs_queue, self._write_lock,
                                {"memorize": self._prepare_memorize, "reconcile": self._prepare_reread,
                                 "summary": self._prepare_summary, "consolidate": self._prepare_consolidation},
                                around=self._job_context, describe_unavailable=_llm_message)
        self.journal_ = Journal(self.engine, self.jobs_queue, self._write_lock,
                                CascadeContext(self.store, self.episodes, self.graph))
        self.resumed_jobs = self.jobs_queue.resume_interrupted()
        self.index_report: dict | None = None
        self.index_switch: IndexSwitch | None = None  # a new embedding model's index being built
        self.switch_progress: dict | None = None
        if settings.embed_model_next and settings.embed_model_next != settings.embed_model:
            self.index_switch = self._new_switch(settings.embed_model_next)  # a build cut by a quit
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
        settings = config.load_settings(path)
        for key, value in overrides.items():
            if not hasattr(settings, key):
                raise TypeError(f"unknown setting {key!r}")
            setattr(settings, key, value)
        if ask_passphrase is None:
            ask_passphrase = settings.lock_at_start
        journal_key = vault.open_key(path, passphrase=passphrase, encrypt_new=encrypt,
                                     ask_passphrase=ask_passphrase)
        return cls(path, settings, reconcile=reconcile, key=journal_key)

    @property
    def encrypted(self) -> bool:
        return self.key.data_key is not None

    @property
    def has_passphrase(self) -> bool:
        return self.key.key_file is not None and self.key.key_file.has_passphrase

    @property
    def keyring_keeps_key(self) -> bool:
        """The key file has a keyring slot (without asking the keyring: that can block)."""
        return self.key.key_file is not None and self.key.key_file.uses_keyring

    def set_passphrase(self, new: str, *, current: str | None = None) -> None:
        """Set or change the passphrase (the data key is rewrapped; the data is not re-encrypted).
        Changing one needs the current passphrase (or the recovery key): WrongPassphrase otherwise."""
        kf = self._key_file()
        if kf.has_passphrase:
            if not current:
                raise crypto.PassphraseNeeded("Enter the current passphrase to change it.")
            kf.unlock_secret(current)
        assert self.key.data_key is not None
        kf.set_passphrase(self.key.data_key, new)

    def remove_passphrase(self, *, current: str) -> None:
        """Open with the system keyring alone (PassphraseNeeded when it does not hold the key). The app
        lock goes too: with no passphrase it would only open with the recovery key."""
        kf = self._key_file()
        kf.unlock_secret(current)
        assert self.key.data_key is not None
        kf.remove_passphrase(self.key.data_key)
        on_disk = config.load_settings(self.home, apply_env=False)
        on_disk.lock_at_start, on_disk.lock_idle_minutes = False, 0
        config.save_settings(self.home, on_disk)
        self.settings.lock_at_start, self.settings.lock_idle_minutes = False, 0

    def new_recovery_key(self) -> str:
        """A new recovery key (the previous one stops working): show it once."""
        assert self.key.data_key is not None
        return self._key_file().new_recovery_key(self.key.data_key)

    def check_passphrase(self, secret: str) -> bool:
        """Whether `secret` (passphrase or recovery key) opens this journal: the app lock's check."""
        try:
            self._key_file().unlock_secret(secret)
        except crypto.WrongPassphrase:
            return False
        return True

    def _key_file(self) -> crypto.KeyFile:
        if self.key.key_file is None:
            raise crypto.PassphraseNeeded("This journal is not encrypted: convert it first.")
        return self.key.key_file

    def disclosure(self) -> disclosure.Disclosure:
        """What is sent to the LLM endpoint, and when (nothing when no LLM is set)."""
        return disclosure.describe(self.settings.llm_base_url, self.llm_configured, self.settings)

    def take_recovery_key(self) -> str | None:
        """The recovery key made with this journal, once (then forgotten): to print or save."""
        recovery, self.key.recovery_key = self.key.recovery_key, None
        return recovery

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
        st = self.settings
        key = secrets.key_for(st.llm_base_url, st.llm_key_endpoint)
        client = LLMClient(base_url=st.llm_base_url or None, api_key=key, model=st.llm_model,
                           timeout=st.llm_timeout_s, max_retries=st.llm_max_retries,
                           metric_sink=self.metrics.record, probe_cache=self.probe_cache)
        return Gate(client, PrivacyLens(self.engine))

    def reconfigure(self, settings: config.Settings, *, rebuild_now: bool = True) -> bool:
        """Apply new settings. A changed embedding model gets its index built beside the one in use
        (now, or by the caller's `step_embedder_switch` loop when `rebuild_now` is False: the app
        runs it in the background with progress) and is used once that index is complete. True when
        such a build was started."""
        chosen, in_use = settings.embed_model, self.settings.embed_model
        settings.embed_model, settings.embed_model_next = in_use, self.settings.embed_model_next
        self.settings = settings
        self.llm = self._make_llm()
        self.retriever.context_rerank.configure(settings.search_reranker, lambda: self.llm)
        self.graph.merge_threshold = settings.graph_merge_threshold or None
        if chosen == in_use:
            self.cancel_embedder_switch()  # back to the model in use: a build underway stops
            return False
        # The caller saved the dialog's choice; the file names the model in use until its
        # replacement's index is complete (else the next start would switch without one).
        self._persist(embed_model=in_use)
        if chosen == settings.embed_model_next:
            return False  # already being prepared
        self.switch_embedder(chosen)
        if rebuild_now:
            while not self.step_embedder_switch(limit=256)["finished"]:
                pass
        return True

    # -- a new embedding model: its index built beside the one in use (index_switch.py) ------------

    def switch_embedder(self, model: str) -> None:
        """Start building the search index for `model` beside the one in use, which keeps serving
        search until the new one is complete (`step_embedder_switch`). The choice is saved first: a
        quit or a kill continues the build at the next start."""
        if self.index_switch is not None:
            if self.index_switch.model == model:
                return
            self.cancel_embedder_switch()
        self._persist(embed_model=self.settings.embed_model, embed_model_next=model)
        self.index_switch = self._new_switch(model)
        self.switch_progress = {"model": model, "done": 0, "total": 0, "finished": False}

    def step_embedder_switch(self, limit: int = 32, should_stop=None) -> dict:
        """Embed the next few items into the new model's index; when it is complete, the model changes
        (search uses it from then on) and the old index goes. Returns {model, done, total, finished}.
        Raises SwitchFailed (the new model cannot be used; the model in use stays, the choice is
        undone)."""
        sw = self.index_switch
        if sw is None:
            return {"model": self.settings.embed_model, "done": 0, "total": 0, "finished": True}
        try:
            with self.embedder.background():  # searches meanwhile keep to one thread
                step = sw.step(limit, should_stop)
        except SwitchFailed:
            self.cancel_embedder_switch()
            raise
        if step is None or (step.finished and not self._finish_switch(sw)):
            return {"model": sw.model, "done": 0, "total": 0, "finished": False, "stopped": True}
        self.switch_progress = {"model": step.model, "done": step.done, "total": step.total,
                                "finished": step.finished}
        return dict(self.switch_progress)

    def cancel_embedder_switch(self) -> None:
        """Stop building a new model's index (its collections go); the model in use stays."""
        with self._write_lock:
            sw, self.index_switch, self.switch_progress = self.index_switch, None, None
        if sw is not None:
            sw.abandon()  # waits for a chunk under way
        if self.settings.embed_model_next:
            self._persist(embed_model_next="")

    def _switch_state(self) -> dict | None:
        if self.switch_progress:
            return dict(self.switch_progress)
        if self.index_switch:  # resumed at start, no step yet
            return {"model": self.index_switch.model, "done": 0, "total": 0, "finished": False}
        return None

    def _new_switch(self, model: str) -> IndexSwitch:
        return IndexSwitch(model, self.engine, self.vectors, self.store.collections, self._write_lock,
                           metric_sink=self.metrics.record)

    def _finish_switch(self, sw: IndexSwitch) -> bool:
        """The swap; False when the switch was stopped meanwhile."""
        with self._write_lock:  # no change lands between the last copy and the swap
            if self.index_switch is not sw:
                return False
            sw.store_node_vectors()
            self.embedder = sw.embedder
            self.store.collections.next = None
            self.store.set_embedder(self.embedder)
            self.graph.embedder = self.embedder
            self._persist(embed_model=sw.model, embed_model_next="")
            self.index_switch = None
        self.store.collections.drop_other_models(keep={sw.model})
        for user_id in self.store.users():
            self.graph.store.invalidate_cache(user_id)
        return True

    def _persist(self, **values) -> None:
        """Change settings both here and in the settings file (env overrides are never written)."""
        on_disk = config.load_settings(self.home, apply_env=False)
        for key, value in values.items():
            setattr(on_disk, key, value)
            setattr(self.settings, key, value)
        config.save_settings(self.home, on_disk)

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

    def status(self) -> dict:
        es = self.embedder.status
        caps = self.llm.capabilities
        return {
            "home": str(self.home),
            "pending_jobs": self.jobs_queue.count_for_the_journal("pending"),
            "running_jobs": self.jobs_queue.count("running") + self.jobs_queue.count("waiting"),
            "failed_jobs": self.jobs_queue.count("failed"),
            "llm": {"configured": self.llm.configured, "model": self.settings.llm_model,
                    "base_url": self.settings.llm_base_url or "(OpenAI default)",
                    "mode": caps.mode if caps else None,
                    "mode_label": MODE_LABELS[caps.mode] if caps else None},
            "embedder": {"state": es.state, "requested": es.requested, "active": es.active,
                         "message": es.message},
            "embedder_switch": self._switch_state(),
        }

    # -- the LLM connection ---------------------------------------------------------------

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm.configured)

    @property
    def llm_mode(self) -> str | None:
        caps = self.llm.capabilities
        return caps.mode if caps else None

    def check_llm(self) -> bool | None:
        """True when the configured LLM answers, False when it does not, None when none is set."""
        if not self.llm.configured:
            return None
        try:
            self.llm.ping()
        except LLMError:
            return False
        return True

    def test_llm(self, base_url: str | None, model: str, api_key: str | None = None) -> dict:
        """Try unsaved connection settings: the server's models and how it answers best (the probe
        result is remembered, so saving these settings needs no second probe).
        Raises LLMUnavailable with a sentence fit to show."""
        key = api_key if api_key is not None else secrets.key_for(base_url, self.settings.llm_key_endpoint)
        client = LLMClient(base_url=base_url or None, api_key=key or None, model=model, timeout=15,
                           max_retries=0, probe_cache=self.probe_cache)
        if not client.configured:
            raise LLMUnavailable("no API key and no server URL")
        models = client.list_models()
        caps = client.probe(force=True)
        return {"model": model, "models": models, "mode": caps.mode, "mode_label": MODE_LABELS[caps.mode]}

    @staticmethod
    def find_local_llms() -> list[dict]:
        """OpenAI-compatible servers already running on this computer (Ollama, LM Studio, …)."""
        return [{"preset": f.preset.key, "label": f.preset.label, "base_url": f.base_url, "models": list(f.models)}
                for f in servers.discover_local()]

    # -- better search: models the user chose to download (Settings → Search) -------------

    def search_models(self, user_id: str = "me") -> dict:
        """What Settings → Search offers: each downloadable model and whether it is here, the
        reranker's state, and what the LLM option would cost per question on this journal."""
        from memoir_desktop.core.search.llm_rerank import estimate_tokens

        with Session(self.engine) as s:
            recent = s.exec(select(Memory).where(col(Memory.user_id) == user_id, col(Memory.state) == "active")
                            .order_by(col(Memory.created_at).desc()).limit(30)).all()
        shown = [{"id": m.id, "text": m.text, "created_at": m.created_at} for m in recent]
        return {"models": [model_catalog.describe(m) for m in model_catalog.CATALOG.values()],
                "embed_model": self.settings.embed_model, "switch": self._switch_state(),
                "reranker": self.retriever.context_rerank.status(), "llm_configured": self.llm.configured,
                "llm_tokens": estimate_tokens("요즘 어떻게 지내?", shown) if shown else 0}

    def warm_search(self) -> None:
        """Load what the first answer would otherwise wait for (the chosen reranker)."""
        self.retriever.context_rerank.warm()

    def install_search_model(self, key: str, progress=None, cancelled=None) -> str:
        """Download a catalog model (resumable, verified); raises ModelUnavailable saying why."""
        where = model_catalog.install(model_catalog.CATALOG[key], progress=progress, cancelled=cancelled)
        self.retriever.context_rerank.configure(self.settings.search_reranker, lambda: self.llm)  # try it anew
        return str(where)

    def remove_search_model(self, key: str) -> None:
        """Delete a downloaded model (not the search model in use or being prepared: InvalidInput)."""
        if key in (self.settings.embed_model, self.settings.embed_model_next):
            raise InvalidInput("This model is what search uses now: choose another one first, then remove it.")
        model_catalog.remove(model_catalog.CATALOG[key])
        self.retriever.context_rerank.configure(self.settings.search_reranker, lambda: self.llm)

    # -- journal ------------------------------------------------------------------------

    def journal(self, text: str, *, user_id: str = "me", timestamp=None, role: str = "user",
                source: str = "journal", private: bool = False) -> int:
        """Commit the entry (first, before anything else) and queue its memorize job. A private
        entry is only journaled: never sent to an LLM, found by local search alone."""
        entry_id = pk(self.journal_.write(text, user_id=user_id, timestamp=timestamp, role=role, source=source,
                                          private=private).entry)
        self._index_while_offline(user_id, entry_id, private=private)
        return entry_id

    def _index_while_offline(self, user_id: str, entry_id: int, *, private: bool = False) -> None:
        """With no LLM the entry's memorize job waits, and with it the entry's vector: found by
        meaning only after a restart. Indexed now instead; the job, when it runs, indexes it again
        (the same point, replaced). A private entry has no job at all: indexed now, by the local
        model only."""
        if private or not self.llm.configured:
            self.journal_.ctx.reindex_entry(user_id, entry_id, Change())

    def entries(self, *, user_id: str = "me", day: date | None = None, limit: int | None = None,
                letters: bool = False) -> list[dict]:
        """The journal's entries (not the trash), in time order; one day's with `day`; memoir's
        weekly and monthly letters too with `letters`."""
        return self.journal_.entries(user_id=user_id, day=day, limit=limit, letters=letters)

    def entry(self, entry_id: int) -> dict:
        return self.journal_.entry(entry_id)

    def days(self, *, user_id: str = "me") -> list[date]:
        return self.journal_.days(user_id=user_id)

    def edit_entry(self, entry_id: int, text: str) -> dict:
        """Rewrite an entry (the old text is kept in its history); its memories follow (cascade)."""
        return self.journal_.edit(entry_id, text)

    def move_entry(self, entry_id: int, when) -> dict:
        """Give an entry another date/time; relative times in it count from the new day."""
        return self.journal_.move(entry_id, when)

    def set_entry_private(self, entry_id: int, private: bool = True) -> dict:
        """Keep an entry from every LLM from now on (its memories leave the answer context), or share it again."""
        return self.journal_.set_private(entry_id, private)

    def delete_entry(self, entry_id: int) -> dict:
        """Move an entry to the trash (restorable); the memories only it supported go with it."""
        return self.journal_.trash(entry_id)

    def restore_entry(self, entry_id: int) -> dict:
        return self.journal_.restore(entry_id)

    def purge_preview(self, entry_id: int) -> dict:
        """What deleting a trashed entry forever removes, for the confirmation."""
        return self.journal_.purge_preview(entry_id)

    def purge_entry(self, entry_id: int) -> dict:
        """Delete a trashed entry forever, with everything derived from it alone. A letter of its
        week or month may retell it, so such letters go too (with their history); the next
        make_letters writes them again from what is left."""
        e = self.journal_.entry(entry_id)
        out = self.journal_.purge(entry_id)
        if e["kind"] != "letter":
            gone = self._drop_letters_of(e["user_id"], datetime.fromisoformat(e["created_at"]).date())
            if gone:
                out["letters_removed"] = gone
                out["changes"] = (Changes.from_dict(out["changes"]) | Changes.of(entries=gone)).to_dict()
        return out

    def _drop_letters_of(self, user_id: str, day: date) -> list[int]:
        with self._write_lock, Session(self.engine) as s:
            rows = [e for e in s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.kind) == "letter"))
                    if e.source_ref and letters.Period.from_key(e.source_ref).start <= day
                    <= letters.Period.from_key(e.source_ref).end]
            ids = [pk(e) for e in rows]
            for e in rows:
                for h in s.exec(select(EntryHistory).where(col(EntryHistory.entry_id) == e.id)):
                    s.delete(h)
                s.flush()  # no ORM relationship orders the deletes: the history rows go first
                s.delete(e)
            s.commit()
        if ids:
            checkpoint(self.engine)  # out of the write-ahead log too (see db.checkpoint)
            self.episodes.remove(user_id, ids)
        return ids

    def trash(self, *, user_id: str = "me") -> list[dict]:
        return self.journal_.in_trash(user_id=user_id)

    def entry_history(self, entry_id: int) -> list[dict]:
        return self.journal_.history(entry_id)

    def search_entries(self, query: str, *, user_id: str = "me", limit: int = 20, now: datetime | None = None
                       ) -> list[dict]:
        """What the user wrote, by words (and meaning when the model is there), with highlights."""
        q = self.retriever.query(query, now)
        return self.journal_.search(user_id, q, limit=limit)

    def find(self, query: str, *, user_id: str = "me", limit: int = 20, now: datetime | None = None) -> dict:
        """The one search field: entries and memories for a query, analysed once."""
        q = self.retriever.query(query, now)
        return {"entries": self.journal_.search(user_id, q, limit=limit),
                "memories": self.retriever.search(user_id, q, limit=limit, listing=True)}

    def chat(self, text: str, *, user_id: str = "me", timestamp=None, remember: bool = True) -> dict:
        """Journal the message, answer from memory, journal the answer, memorise the exchange
        (begin_chat, then answer_chat).

        remember=False answers without keeping the exchange (evaluation questions must not
        become memories or change the next question's context)."""
        if not remember:
            text = clean_text(text)
            out = self._new_turn()
            self._answer_into(out, text, user_id, parse_time(timestamp))
            return out
        return self.answer_chat(self.begin_chat(text, user_id=user_id, timestamp=timestamp))

    def begin_chat(self, text: str, *, user_id: str = "me", timestamp=None) -> dict:
        """Commit the user's message and its memorize job together, before any answer is asked for:
        the job waits for the answer (so extraction sees the whole exchange) and runs without it if
        the answer fails or the app is killed meanwhile (jobs.resume_interrupted). Returns the turn,
        to hand to answer_chat; the screen can show the message as saved at once."""
        text = clean_text(text)
        when = parse_time(timestamp)
        with self._write_lock, Session(self.engine) as s:
            entry = Entry(user_id=user_id, role="user", content=text, created_at=when, source="chat")
            s.add(entry)
            s.flush()
            job = self.jobs_queue.enqueue(s, "memorize", user_id, {"entry_ids": [entry.id]}, state="waiting")
            s.flush()
            out = self._new_turn(entry_id=entry.id, job_id=job.id)
            s.commit()
        out.update(text=text, user_id=user_id, when=when.isoformat(), backdated=timestamp is not None)
        self._index_while_offline(user_id, out["entry_id"])
        return out

    def answer_chat(self, turn: dict) -> dict:
        """The companion's answer to a begun turn; the reply joins the turn's job, which then runs."""
        out = dict(turn)
        when = datetime.fromisoformat(out.pop("when"))
        text, user_id, backdated = out.pop("text"), out.pop("user_id"), out.pop("backdated")
        try:
            self._answer_into(out, text, user_id, when)
        finally:
            self._release_chat_job(out, user_id, when if backdated else None)
        return out

    def reply_to(self, entry_id: int) -> dict:
        """Ask the companion, later, about an entry saved without a reply. The reply is journalled
        after it; it is the companion's words, so it makes no memory of its own."""
        e = self.journal_.entry(entry_id)
        if e["deleted_at"]:
            raise InvalidInput("this entry is in the trash: restore it first")
        if e["private"]:
            raise InvalidInput("this entry is private, so it is never sent to the AI: share it again to ask "
                               "the companion about it")
        out = self._new_turn(entry_id=entry_id)
        self._answer_into(out, e["content"], e["user_id"], datetime.fromisoformat(e["created_at"]))
        if out["reply"]:
            # On the entry's own day, just after it (a reply to a back-dated entry stays on that day).
            when = datetime.fromisoformat(e["created_at"]) + timedelta(seconds=1)
            written = self.journal_.write(clean_reply(out["reply"]), user_id=e["user_id"], role="assistant",
                                          source="chat", memorize=False, timestamp=when, reply_to=entry_id)
            out["reply_entry_id"] = written.entry.id
        return out

    @staticmethod
    def _new_turn(entry_id: int | None = None, job_id: int | None = None) -> dict:
        return {"reply": None, "entry_id": entry_id, "reply_entry_id": None, "job_id": job_id,
                "memories": [], "error": None, "error_kind": None}

    def _answer_into(self, out: dict, text: str, user_id: str, when: datetime) -> None:
        try:
            out["reply"] = self._answer(text, user_id, when, out["entry_id"], out)
        except LLMError as exc:
            out["error"] = _llm_message(exc)
            out["error_kind"] = ("not_configured" if not self.llm.configured else
                                 "unavailable" if isinstance(exc, LLMUnavailable) else "bad_reply")

    def _answer(self, text: str, user_id: str, when: datetime, entry_id: int | None, out: dict) -> str:
        with Session(self.engine) as s:
            cleared, recent = recent_context(self.llm, "answer", s, user_id, entry_id or 2**62,
                                             self.settings.recent_messages,
                                             also=[entry_id] if entry_id is not None else [])
        if entry_id is not None and not cleared.entry_ok(entry_id):
            raise PrivateRefused("this entry is private: it is never sent to the AI")
        ctx = self.context_for(text, user_id=user_id, now=when)
        if entry_id is not None:  # a kept turn (not an evaluation question): plans to ask about, gently
            plans = self.followups(user_id=user_id, now=when, phrase=False)[:3]
            ctx.followups = self.llm.admit("answer", memories=[f["memory_id"] for f in plans]).keep_memories(
                [{**f, "id": f["memory_id"]} for f in plans])
            out["followups"] = [f["memory_id"] for f in ctx.followups]
        out["memories"] = ctx.all_items
        out["context_tokens"] = ctx.tokens
        out["route"] = ctx.route.reason if ctx.route else ""
        out["left_out"] = cleared.left_out + ctx.left_out
        system = prompts.ANSWER_SYSTEM.format(today=when.date().isoformat(),
                                              weekday=temporal.WEEKDAY_NAMES[when.weekday()], context=ctx.render())
        msgs = [{"role": "system", "content": system}]
        msgs += [{"role": e.role, "content": e.content} for e in recent]
        msgs.append({"role": "user", "content": text})
        return self.llm.complete(cleared, msgs, temperature=0.5)

    def _release_chat_job(self, out: dict, user_id: str, reply_time: datetime | None) -> None:
        """Add the reply (if any) to the turn's entries and its job, and let the job run."""
        with self._write_lock, Session(self.engine) as s:
            job = s.get(Job, out["job_id"])
            if out["reply"]:
                reply = Entry(user_id=user_id, role="assistant", content=clean_reply(out["reply"]),
                              created_at=reply_time or now(), source="chat", reply_to=out["entry_id"])
                s.add(reply)
                s.flush()
                out["reply_entry_id"] = reply.id
                if job is not None and job.state == "waiting":
                    job.payload = {**job.payload, "entry_ids": [*job.payload["entry_ids"], reply.id]}
            if job is not None and job.state == "waiting":
                job.state, job.updated_at = "pending", now()
                s.add(job)
            s.commit()

    def context_for(self, query: str, *, user_id: str = "me", now: datetime | None = None):
        """Hot path (profile, summary) + routed cold path, within the token budget."""
        now = now or datetime.now()
        r = route(query, graph_enabled=self.settings.graph_enabled)
        start = time.perf_counter()
        cold = self.retriever.cold_path(user_id, query, r, limit=self.settings.similar_memories, now=now)
        if r.retrieve:
            self.metrics.record("search", (time.perf_counter() - start) * 1000)
        with Session(self.engine) as s:
            summ = latest_summary(s, user_id)
            profile_rows = s.exec(
                select(Memory).where(col(Memory.user_id) == user_id, col(Memory.state) == "active")
                .order_by(col(Memory.user_edited).desc(), col(Memory.updated_at).desc()).limit(PROFILE_SIZE)
            ).all()
        profile = [memory_dict(m) for m in profile_rows]
        # What the answer may carry is the gate's decision: private entries (episodes) and memories
        # only private entries support are left out here, before the context is written.
        cleared = self.llm.admit("answer", entries=cold.episodes, memories=[*cold.memories, *profile])
        ctx = assemble(summary=summ.text if summ else "", profile=cleared.keep_memories(profile),
                       retrieved=cleared.keep_memories(cold.memories), relations=cold.relations,
                       episodes=cleared.keep_entries(cold.episodes), budget=self.settings.context_token_budget)
        ctx.route, ctx.skipped, ctx.left_out = r, cold.skipped, cleared.left_out
        return ctx

    # -- mem0-style API ---------------------------------------------------------------

    def add(self, messages, *, user_id: str = "me", metadata: dict | None = None, infer: bool = True,
            timestamp=None, memory_type: str | None = None, entry_id: int | None = None) -> dict:
        """`entry_id` (with infer=False): the entry the user's own memory comes from ("Remember
        this"), so it follows that entry to the trash or into privacy like the AI's memories."""
        msgs = _as_messages(messages)
        when = parse_time(timestamp)
        if not infer:
            return self._add_verbatim(msgs, user_id, metadata, when, entry_id)
        if memory_type == "procedural":
            return self._add_procedural(msgs, user_id, metadata, when)
        with Session(self.engine) as s:
            ids = []
            for m in msgs:
                e = Entry(user_id=user_id, role=m["role"], content=m["content"], created_at=when, source="api")
                s.add(e)
                s.flush()
                ids.append(e.id)
            job = self.jobs_queue.enqueue(s, "memorize", user_id, {"entry_ids": ids, "metadata": metadata or {}})
            s.commit()
            job_id = pk(job)
        done = self._run_job(job_id)
        if done["state"] != "done":
            raise (LLMUnavailable if done["state"] == "pending" else LLMBadReply)(done.get("error") or "failed")
        return {"results": done["result"]["results"], "relations": done["result"].get("relations", []),
                "pending_confirmation": done["result"].get("pending_confirmation", [])}

    def _add_verbatim(self, msgs, user_id, metadata, when, entry_id: int | None = None) -> dict:
        change = Change()
        results = []
        with self._write_lock, Session(self.engine) as s:
            if entry_id is not None:
                e = s.get(Entry, entry_id)
                if e is None or e.user_id != user_id:
                    raise NotFound(entry_id)
            for m in msgs:
                row = self._stage_verbatim(s, change, user_id, m["content"], when, entry_id, metadata)
                results.append({"id": row.id, "memory": row.text, "event": "ADD"})
            s.commit()
        self.store.apply_index(user_id, change)
        return {"results": results, "changes": Changes.of(memories=[r["id"] for r in results]).to_dict()}

    def _stage_verbatim(self, s: Session, change: Change, user_id: str, text: str, when: datetime,
                        entry_id: int | None, metadata: dict | None) -> Memory:
        # Verbatim: the text is kept as given; only its time fields are read from it.
        about, rule = fact_span(text, when), temporal.recurring.rule_of(text)
        return self.store.stage_add(s, change, user_id=user_id, text=text, actor="user", created_at=when,
                                    entry_id=entry_id, about=about, recurrence=rule, meta=metadata,
                                    category=categories.categorize(text, about=about, recorded=when,
                                                                   recurrence=rule))

    def _add_procedural(self, msgs, user_id, metadata, when) -> dict:
        text = self.llm.complete("extraction", [{"role": "system", "content": prompts.PROCEDURAL_SYSTEM},
                                                {"role": "user", "content": prompts.format_messages(msgs)}])
        if not text.strip():
            raise LLMBadReply("procedural summary came back empty")
        change = Change()
        with Session(self.engine) as s:
            row = self.store.stage_add(s, change, user_id=user_id, text=text.strip(), actor="llm",
                                       created_at=when, memory_type="procedural", meta=metadata)
            s.commit()
            result = {"id": row.id, "memory": row.text, "event": "ADD"}
        self.store.apply_index(user_id, change)
        return {"results": [result]}

    def search(self, query: str, *, user_id: str = "me", limit: int = 10, filters: dict | None = None,
               now: datetime | None = None) -> dict:
        start = time.perf_counter()
        results = self.retriever.search(user_id, query, limit=limit, filters=filters, now=now)
        self.metrics.record("search", (time.perf_counter() - start) * 1000)
        return {"results": results}

    def get(self, memory_id: str) -> dict:
        m = self.store.get(memory_id)
        if m is None:
            raise NotFound(memory_id)
        return memory_dict(m)

    def get_many(self, ids) -> dict[str, dict]:
        """{id: memory} for the ids that exist (any state)."""
        return {mid: memory_dict(m) for mid, m in self.store.get_many(ids).items()}

    def get_all(self, *, user_id: str = "me", include_invalid: bool = False) -> dict:
        return {"results": [memory_dict(m) for m in self.store.all(user_id, include_invalid)]}

    def update(self, memory_id: str, text: str) -> dict:
        """A user edit: recorded in history with actor "user"; the memory becomes protected."""
        text = clean_text(text)
        change = Change()
        with self._write_lock, Session(self.engine) as s:
            m = s.get(Memory, memory_id)
            if m is None:
                raise NotFound(memory_id)
            shaped = shape_fact(text, m.created_at)
            old = self.store.stage_update(s, change, m, shaped.text, actor="user")
            # The user's words decide the time fields exactly, also when an edit removes a date.
            m.about_start, m.about_end = shaped.about or (None, None)
            m.recurrence = shaped.recurrence
            s.add(m)
            s.commit()
            s.refresh(m)
            user_id, result = m.user_id, memory_dict(m, previous_memory=old,
                                                     changes=Changes.of(memories=[m.id]).to_dict())
        self.store.apply_index(user_id, change)
        return result

    def delete(self, memory_id: str) -> dict:
        return self._set_state(memory_id, "invalid")

    def restore(self, memory_id: str) -> dict:
        return self._set_state(memory_id, "active")

    def _set_state(self, memory_id: str, state: str, actor: str = "user") -> dict:
        change = Change()
        with self._write_lock, Session(self.engine) as s:
            m = s.get(Memory, memory_id)
            if m is None:
                raise NotFound(memory_id)
            if m.state != state:
                self.store.stage_state(s, change, m, state, actor=actor)
                s.commit()
                s.refresh(m)
            user_id, result = m.user_id, memory_dict(m, changes=Changes.of(memories=[m.id]).to_dict())
        self.store.apply_index(user_id, change)
        return result

    def history(self, memory_id: str) -> list[dict]:
        if self.store.get(memory_id) is None:
            raise NotFound(memory_id)
        return [
            {"id": h.id, "memory_id": h.memory_id, "event": h.event, "old_memory": h.old_memory,
             "new_memory": h.new_memory, "actor": h.actor, "created_at": h.created_at.isoformat(),
             "entry_id": h.entry_id, "job_id": h.job_id, "note": h.note}
            for h in self.store.history(memory_id)
        ]

    # -- proposals held for the user ------------------------------------------------------

    def proposals(self, *, user_id: str = "me") -> list[dict]:
        with Session(self.engine) as s:
            rows = s.exec(select(Proposal).where(col(Proposal.user_id) == user_id, col(Proposal.state) == "pending")
                          .order_by(col(Proposal.id))).all()
            mems = self.store.get_many([p.memory_id for p in rows])
        return [{"id": p.id, "memory_id": p.memory_id, "event": p.event, "memory": mems[p.memory_id].text,
                 "proposed": p.new_text, "reason": p.reason, "job_id": p.job_id} for p in rows]

    def resolve_proposal(self, proposal_id: int, accept: bool) -> dict:
        change = Change()
        with self._write_lock, Session(self.engine) as s:
            p = s.get(Proposal, proposal_id)
            if p is None or p.state != "pending":
                raise NotFound(proposal_id)
            p.state = "accepted" if accept else "rejected"
            s.add(p)
            m = s.get(Memory, p.memory_id)
            if m is None:
                raise NotFound(p.memory_id)
            if accept and m.state == "active":
                if p.event == "UPDATE" and p.new_text:
                    self.store.stage_update(s, change, m, p.new_text, actor="user")
                elif p.event == "DELETE":
                    self.store.stage_state(s, change, m, "invalid", actor="user", note="confirmed LLM proposal")
            s.commit()
            user_id, result = m.user_id, memory_dict(m, changes=Changes.of(memories=[m.id], proposals=True).to_dict())
        self.store.apply_index(user_id, change)
        return result

    # -- other AI tools connected over MCP (connected_apps.py) ----------------------------

    def connected_apps(self, *, user_id: str = "me") -> list[dict]:
        return connected_apps.apps(self.engine, user_id=user_id)

    def set_app_grant(self, name: str, grant: str, on: bool, *, user_id: str = "me") -> dict:
        """grant: allowed | read_entries | write_directly."""
        return connected_apps.set_grant(self.engine, name, grant, on, user_id=user_id)

    def pause_app(self, name: str, paused: bool = True, *, user_id: str = "me") -> dict:
        return connected_apps.pause(self.engine, name, paused, user_id=user_id)

    def app_log(self, *, app: str | None = None, limit: int = 200, user_id: str = "me") -> list[dict]:
        """Every call the apps made, newest first: time, app, tool, how many items went out."""
        return connected_apps.call_log(self.engine, user_id=user_id, app=app, limit=limit)

    def new_app_token(self) -> str:
        """The HTTP transport's bearer token, shown this once (only its hash is kept); the old one stops."""
        return app_access.new_token(self.engine)

    def has_app_token(self) -> bool:
        return app_access.has_token(self.engine)

    def memory_suggestions(self, *, user_id: str = "me") -> list[dict]:
        """Memories apps suggested (add_memory over MCP), waiting for the user, oldest first."""
        return app_suggestions.pending(self.engine, user_id=user_id)

    def decide_suggestion(self, suggestion_id: int, accept: bool, *, user_id: str = "me") -> dict:
        """Accepted, the suggestion becomes a memory as one added by hand (noting the app); rejected, none."""
        change, memory_id = Change(), None
        with self._write_lock, Session(self.engine) as s:
            row = app_suggestions.take_pending(s, suggestion_id, user_id)
            if accept:
                memory_id = self._stage_verbatim(s, change, user_id, clean_text(row.text), parse_time(None), None,
                                                 {"suggested_by": row.app}).id
            app_suggestions.mark(s, row, accept, memory_id)
            s.commit()
        self.store.apply_index(user_id, change)
        return {"id": suggestion_id, "accepted": accept, "memory_id": memory_id,
                "changes": Changes.of(memories=[memory_id], proposals=True).to_dict()}

    # -- background work ----------------------------------------------------------------

    def jobs(self, state: str | None = None, *, user_id: str | None = None,
             entry_ids: list[int] | None = None) -> list[dict]:
        """Jobs in order; entry_ids keeps those whose payload names any of these entries."""
        rows = self.jobs_queue.list(state, user_id)
        if entry_ids is not None:
            wanted = set(entry_ids)
            rows = [j for j in rows if wanted & {*(j.payload or {}).get("entry_ids", []),
                                                 (j.payload or {}).get("entry_id")}]
        return [job_dict(j) for j in rows]

    def retry_job(self, job_id: int) -> bool:
        return self.jobs_queue.retry(job_id)

    def process_jobs(self, limit: int | None = None) -> list[dict]:
        """Drain pending jobs in order. Stops early when the LLM is unreachable (the job stays
        pending). Returns one dict per job attempted: id, kind, state, result or error."""
        self.jobs_queue.release_stale_waiting()
        out: list[dict] = []
        last = 0
        while limit is None or len(out) < limit:
            job = self.jobs_queue.next_pending(after_id=last)
            if job is None:
                break
            last = pk(job)
            res = self._run_job(last)
            out.append(res)
            if res["state"] == "pending":
                break
        self.metrics.flush()
        return out

    def _run_job(self, job_id: int) -> dict:
        return self.runner.run(job_id)

    @contextlib.contextmanager
    def _job_context(self, job: Job):
        self.metrics.job_id = job.id
        try:
            with self.embedder.background():
                yield
        finally:
            self.metrics.job_id = None

    def _write_context(self) -> WriteContext:
        return WriteContext(self.engine, self.store, self.llm, self.settings,
                            self.graph if self.settings.graph_enabled else None, self.episodes)

    def _prepare_memorize(self, job: Job) -> Prepared:
        return prepare_memorize(self._write_context(), job)

    def _prepare_reread(self, job: Job) -> Prepared:
        return prepare_entry_reread(self._write_context(), job)

    def consolidate(self, *, user_id: str = "me", include_user_edited: bool = False) -> int:
        """Queue a consolidation job. User-edited memories join only when the user agreed."""
        with Session(self.engine) as s:
            job = self.jobs_queue.enqueue(s, "consolidate", user_id, {"include_user_edited": include_user_edited})
            s.commit()
            return pk(job)

    def undo_consolidation(self, merged_id: str) -> list[str]:
        change = Change()
        with self._write_lock, Session(self.engine) as s:
            m = s.get(Memory, merged_id)
            if m is None:
                raise NotFound(merged_id)
            user_id = m.user_id
            restored = consolidation.undo(self.store, s, change, merged_id)
            s.commit()
        self.store.apply_index(user_id, change)
        return restored

    def tidy_proposals(self, *, user_id: str = "me", include_user_edited: bool = False) -> list[tidy.TidyProposal]:
        """Merges of near-duplicate memories to show the user first (nothing changes; a read)."""
        return tidy.propose(self.store, self.llm, user_id, threshold=self._tidy_threshold(), today=now(),
                            include_user_edited=include_user_edited)

    def apply_tidy(self, proposal: tidy.TidyProposal) -> tidy.TidyResult:
        """Merge one accepted proposal (undo_consolidation undoes it); refused if a member changed."""
        return tidy.apply(self.engine, self.store, self._write_lock, proposal)

    def _tidy_threshold(self) -> float:
        return self.settings.consolidation_threshold or self.embedder.related_threshold

    def _prepare_consolidation(self, job: Job) -> Prepared:
        threshold = self.settings.consolidation_threshold or self.embedder.related_threshold
        groups = consolidation.find_groups(self.store, job.user_id, threshold=threshold,
                                           include_user_edited=job.payload.get("include_user_edited", False))
        plans = [(g, consolidation.propose(self.llm, g, now())) for g in groups]
        change = Change()

        def apply(s: Session) -> dict:
            merged = []
            for group, text in plans:
                if text:
                    new = consolidation.apply_merge(self.store, s, change, group, text, job_id=job.id)
                    merged.append(consolidation.result_dict(new, group))
            ids = [x["merged"]["id"] for x in merged] + [o for x in merged for o in x["originals"]]
            return {"groups": len(groups), "merged": merged, "changes": Changes.of(memories=ids).to_dict()}

        return Prepared(apply, after_commit=lambda _r: self.store.apply_index(job.user_id, change))

    def _prepare_summary(self, job: Job) -> Prepared:
        with Session(self.engine) as s:
            # A rebuild (after an entry was deleted forever) reads the latest entries afresh.
            prev = None if job.payload.get("rebuild") else latest_summary(s, job.user_id)
            after = prev.upto_entry_id if prev and prev.upto_entry_id else 0
            q = select(Entry).where(col(Entry.user_id) == job.user_id, col(Entry.id) > after,
                                    col(Entry.deleted_at).is_(None), col(Entry.kind) != "letter")
            rows = list(s.exec(q.order_by(col(Entry.id).desc()).limit(60)) if job.payload.get("rebuild")
                        else s.exec(q.order_by(col(Entry.id)).limit(60)))
            new = sorted(rows, key=lambda e: e.id or 0)
        if not new:
            return Prepared(lambda s: {"summary": prev.text if prev else ""})
        text, left_out = refresh_summary(self.llm, prev.text if prev else "", new, new[-1].created_at)

        def apply(s: Session) -> dict:
            s.add(Summary(user_id=job.user_id, text=text, upto_entry_id=new[-1].id))
            return {"summary": text, "changes": Changes.of(summary=True).to_dict(),
                    **({"left_out": left_out} if left_out else {})}

        return Prepared(apply)

    def summary(self, *, user_id: str = "me") -> str:
        with Session(self.engine) as s:
            row = latest_summary(s, user_id)
        return row.text if row else ""

    # -- graph and metrics, read by the screens -----------------------------------------

    @property
    def graph_store(self):
        """The graph's store, for reading a user's whole graph (viewmodels.graph_view.load_snapshot)."""
        return self.graph.store

    def graph_node(self, node_id: int, *, user_id: str = "me") -> dict | None:
        return self.graph.node_detail(user_id, node_id)

    def metric_rows(self):
        return self.metrics.rows()

    def moods(self, *, user_id: str = "me") -> list[dict]:
        """The moods noted when memories were made ({day, mood}), for the Stats page."""
        out = []
        for j in self.jobs_queue.list("done", user_id):
            mood = (j.result or {}).get("mood")
            ids = (j.payload or {}).get("entry_ids") or []
            if mood and ids:
                try:
                    e = self.journal_.entry(ids[0])
                except NotFound:
                    continue
                if not e["deleted_at"]:
                    out.append({"day": e["created_at"][:10], "mood": mood})
        return out

    def history_rows(self, *, user_id: str = "me") -> list[dict]:
        """Every memory change of the user ({event, actor, created_at}), for the Stats page."""
        with Session(self.engine) as s:
            rows = s.exec(select(History.event, History.actor, History.created_at)
                          .join(Memory, col(Memory.id) == col(History.memory_id))
                          .where(col(Memory.user_id) == user_id).order_by(col(History.id))).all()
        return [{"event": e, "actor": a, "created_at": t.isoformat()} for e, a, t in rows]

    # -- reflection: On This Day, follow-ups, letters, the profile ---------------------------------

    def on_this_day(self, day: date, *, user_id: str = "me") -> list[dict]:
        """Entries and memories of the same date one month and one, two, … years before `day`."""
        with Session(self.engine) as s:
            return on_this_day(s, user_id, day)

    def followups(self, *, user_id: str = "me", now: datetime | None = None, phrase: bool = True) -> list[dict]:
        """Plans whose date has passed, still open, as gentle questions. With `phrase` and an LLM, a
        question not phrased yet is asked of it once (kept); the template stands when it fails. A
        plan a later entry already speaks of is marked answered (by that entry) and not shown."""
        at = now or datetime.now()
        with Session(self.engine) as s:
            found = followups.due(s, user_id, at)
            answered = [(m, followups.answered_by(s, user_id, m, at)) for m, _ in found]
        done = {m.id: eid for m, eid in answered if eid is not None}
        if done:
            with self._write_lock, Session(self.engine) as s:
                for mid, eid in done.items():
                    followups.set_state(s, user_id, mid, followups.ANSWERED, entry_id=eid)
                s.commit()
        out = []
        for m, row in found:
            if m.id in done:
                continue
            if phrase and self.llm.configured and not (row and row.question):
                question = None
                try:
                    question = followups.phrase(self.llm, m, at)
                except LLMError as exc:
                    log.info("follow-up left in its template: %s", exc.__class__.__name__)
                if question:
                    with self._write_lock, Session(self.engine) as s:
                        row = followups.set_state(s, user_id, m.id, followups.OPEN, question=question)
                        s.commit()
                        s.refresh(row)
                        s.expunge(row)
            out.append(followups.followup_dict(m, row))
        return out

    def dismiss_followup(self, memory_id: str, *, user_id: str = "me") -> dict:
        return self._set_followup(memory_id, user_id, followups.DISMISSED)

    def answer_followup(self, memory_id: str, entry_id: int | None = None, *, user_id: str = "me") -> dict:
        """The user wrote about the plan (entry_id: that entry)."""
        return self._set_followup(memory_id, user_id, followups.ANSWERED, entry_id)

    def _set_followup(self, memory_id: str, user_id: str, state: str, entry_id: int | None = None) -> dict:
        with self._write_lock, Session(self.engine) as s:
            if s.get(Memory, memory_id) is None:
                raise NotFound(memory_id)
            row = followups.set_state(s, user_id, memory_id, state, entry_id=entry_id)
            s.commit()
            return {"memory_id": memory_id, "state": row.state, "entry_id": row.entry_id,
                    "changes": Changes.of(memories=[memory_id]).to_dict()}

    def make_letters(self, *, user_id: str = "me", now: datetime | None = None) -> list[dict]:
        """The letters of the weeks and months that ended with entries and have none yet (called at
        start). The LLM writes them when connected; else, or when it fails, the digest. Returns them."""
        at = now or datetime.now()
        with Session(self.engine) as s:
            periods = letters.due_periods(s, user_id, at)
        return [self._write_letter(user_id, p) for p in periods]

    def regenerate_letter(self, entry_id: int) -> dict:
        """Write a letter again (for instance once an LLM is connected); the old text stays in its history."""
        e = self.journal_.entry(entry_id)
        if e["kind"] != "letter":
            raise InvalidInput("only a letter can be written again")
        with Session(self.engine) as s:
            material = letters.gather(s, e["user_id"], letters.Period.from_key(e["source_ref"]))
        # Asked for by the user: an AI that fails keeps the letter as it is (raised, for the dialog to
        # say so) instead of writing the digest over a letter the AI wrote.
        if not self.llm.configured:
            return self.journal_.edit(entry_id, letters.digest(material))
        try:
            text = letters.compose(self.llm, material)
        except ValueError as exc:  # an empty letter: nothing to write over the one there is
            raise LLMBadReply(str(exc)) from exc
        return self.journal_.edit(entry_id, text)

    def letters(self, *, user_id: str = "me") -> list[dict]:
        """The letters (not the trash), newest first."""
        with Session(self.engine) as s:
            rows = s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.kind) == "letter",
                                              col(Entry.deleted_at).is_(None))
                          .order_by(col(Entry.created_at).desc())).all()
        return [self.journal_.entry(pk(e)) for e in rows]

    def _write_letter(self, user_id: str, period) -> dict:
        with Session(self.engine) as s:
            text = self._letter_text(letters.gather(s, user_id, period))
        # On the period's last day, after its entries: the letter reads as the week's (month's) close.
        written = self.journal_.write(text, user_id=user_id, role="assistant", source="reflection", memorize=False,
                                      timestamp=period.ends - timedelta(seconds=1), source_ref=period.key,
                                      kind="letter")
        self.journal_.ctx.reindex_entry(user_id, pk(written.entry), Change())  # searchable at once
        return self.journal_.entry(pk(written.entry))

    def _letter_text(self, material) -> str:
        if self.llm.configured:
            try:
                return letters.compose(self.llm, material)
            except (LLMError, ValueError) as exc:
                log.info("letter written as a digest: %s", exc.__class__.__name__)
        return letters.digest(material)

    def profile(self, *, user_id: str = "me") -> list[dict]:
        """What memoir knows: the active memories by category, with whether each kind is remembered."""
        off = categories.blocked(self.settings)
        groups: dict[str, list[dict]] = {c: [] for c in categories.CATEGORIES}
        for m in self.store.all(user_id):
            groups[categories.category_of(m)].append(memory_dict(m))
        return [{"category": c, "remember": c not in off, "memories": groups[c]} for c in categories.CATEGORIES]

    def set_remembered(self, category: str, remember: bool) -> dict:
        """Switch a kind of thing on or off for the write path (saved in the settings)."""
        if category not in categories.CATEGORIES:
            raise InvalidInput(f"unknown category {category!r}")
        on_disk = config.load_settings(self.home, apply_env=False)
        off = [c for c in on_disk.not_remembered if c != category] + ([] if remember else [category])
        on_disk.not_remembered = off
        config.save_settings(self.home, on_disk)
        self.settings.not_remembered = list(off)
        return {"category": category, "remember": remember, "changes": Changes(settings=True).to_dict()}

    def forget_category(self, category: str, *, user_id: str = "me") -> dict:
        """Forget every active memory of a kind in one action (restore_memories undoes it)."""
        change = Change()
        with self._write_lock, Session(self.engine) as s:
            rows = [m for m in s.exec(select(Memory).where(col(Memory.user_id) == user_id,
                                                           col(Memory.state) == "active"))
                    if categories.category_of(m) == category]
            for m in rows:
                self.store.stage_state(s, change, m, "invalid", actor="user", note=f"forgot all {category}")
            s.commit()
            ids = [m.id for m in rows]
        self.store.apply_index(user_id, change)
        return {"category": category, "forgotten": ids, "changes": Changes.of(memories=ids).to_dict()}

    def restore_memories(self, memory_ids: list[str], *, user_id: str = "me") -> dict:
        change = Change()
        with self._write_lock, Session(self.engine) as s:
            done = []
            for mid in memory_ids:
                m = s.get(Memory, mid)
                if m is not None and m.user_id == user_id and m.state == "invalid":
                    self.store.stage_state(s, change, m, "active", actor="user")
                    done.append(mid)
            s.commit()
        self.store.apply_index(user_id, change)
        return {"restored": done, "changes": Changes.of(memories=done).to_dict()}

    # -- export / import ----------------------------------------------------------------

    def export(self, path, *, passphrase: str | None = None) -> dict:
        """Write the whole journal as JSON (see core/transfer.py; never the API key). With a
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
            self.graph.store.invalidate_cache(user_id)
        self.lexical.drop_all()  # imported memories and entries are not in the built indexes
        self.reconcile()
        return counts

    def import_file(self, path, *, user_id: str = "me", progress=None, passphrase: str | None = None) -> dict:
        """A memoir export (JSON, or encrypted) or a Day One export (.zip, or its .json): told apart by content."""
        if transfer.is_memoir_export(path):
            return {"kind": "memoir", **self.import_(path, passphrase=passphrase)}
        return {"kind": "dayone", **self.import_dayone(path, user_id=user_id, progress=progress)}

    def import_dayone(self, path, *, user_id: str = "me", progress=None) -> dict:
        """Day One entries become journal entries (their dates, tags and time zones kept); their
        memories are made in the background, one job each, as a batch that can be followed and
        cancelled (batch_progress, cancel_batch). An entry imported before is skipped."""
        try:
            read = read_dayone_export(path, progress=progress)
        except DayOneError as exc:
            raise InvalidInput(str(exc)) from exc
        batch = f"import-{now():%Y%m%d-%H%M%S}"
        with Session(self.engine) as s:
            known = set(s.exec(select(Entry.source_ref).where(col(Entry.user_id) == user_id,
                                                              col(Entry.source_ref).is_not(None))))
        fresh = [e for e in read.entries if f"dayone:{e.source_id}" not in known]
        ids: list[int] = []
        for at in range(0, len(fresh), 200):  # short transactions: the user's own actions go between
            with self._write_lock, Session(self.engine) as s:
                for e in fresh[at:at + 200]:
                    row = Entry(user_id=user_id, role="user", content=e.text, created_at=e.created_at,
                                source="import", tags=list(e.tags), time_zone=e.time_zone,
                                source_ref=f"dayone:{e.source_id}")
                    s.add(row)
                    s.flush()
                    ids.append(pk(row))
                    self.jobs_queue.enqueue(s, "memorize", user_id, {"entry_ids": [row.id], "batch": batch})
                s.commit()
        self.lexical.drop(user_id, "ent")
        return {"entries": len(fresh), "already_there": len(read.entries) - len(fresh), "skipped": read.skipped,
                "media": read.media, "warnings": read.warnings, "batch": batch,
                # Not kept (entries have no field for them): counted so every report can say so.
                "starred": sum(e.starred for e in read.entries),
                "located": sum(e.place is not None for e in read.entries),
                "changes": Changes.of(entries=ids).to_dict()}

    def batch_progress(self, batch: str) -> dict:
        """How far the memory building of an import has come: {total, done, failed, pending, cancelled}."""
        out = {"total": 0, "done": 0, "failed": 0, "pending": 0, "cancelled": 0}
        for j in self.jobs_queue.list():
            if (j.payload or {}).get("batch") == batch:
                out["total"] += 1
                key = {"running": "pending", "waiting": "pending"}.get(j.state, j.state)
                out[key] = out.get(key, 0) + 1
        return out

    def cancel_batch(self, batch: str) -> int:
        """Stop making memories for an import (its entries stay); resume_batch starts again."""
        return self.jobs_queue.set_batch_state(batch, "pending", "cancelled")

    def resume_batch(self, batch: str) -> int:
        return self.jobs_queue.set_batch_state(batch, "cancelled", "pending")

    def export_text(self, path, *, fmt: str = "md", per_day: bool = False, lang: str = "ko",
                    user_id: str = "me") -> list[str]:
        """The journal as Markdown or plain text, one file or one per day (not the trash)."""
        return [str(p) for p in export_text(self.entries(user_id=user_id, letters=True), path, fmt=fmt, per_day=per_day,
                                            lang=lang)]

    def backup_now(self) -> str:
        return str(backup.make_backup(self.home, self.settings.backups_keep, data_key=self.key.data_key))

    def backups(self) -> list[str]:
        return [str(p) for p in backup.list_backups(self.home)]

    # -- end-to-end encrypted sync (core/sync) ---------------------------------------------

    @classmethod
    def join(cls, url: str, passphrase: str, *, home=None, progress=None, **overrides) -> Memoir:
        """Open a journal kept in a sync place on this computer for the first time, with its passphrase."""
        return e2e_sync.join(cls, url, passphrase, home=home, progress=progress, **overrides)

    def sync(self, url: str | None = None, progress=None) -> e2e_sync.SyncReport:
        """One sync round with `url` (remembered) or the remembered place; raises e2e_sync.SyncError."""
        return e2e_sync.run(self, url, progress)

    def sync_status(self) -> e2e_sync.SyncStatus:
        """The sync place, the last sync time and the notices not yet seen (for Settings and the status bar)."""
        return e2e_sync.status(self)

    def dismiss_sync_notice(self, notice_id: str) -> None:
        e2e_sync.dismiss(self, notice_id)



def _as_messages(messages) -> list[dict]:
    if isinstance(messages, str):
        return [{"role": "user", "content": clean_text(messages)}]
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages must be a string or a non-empty list of {role, content}")
    out = []
    for m in messages:
        if isinstance(m, str):
            m = {"role": "user", "content": m}
        if not isinstance(m, dict) or "content" not in m:
            raise InvalidInput("each message needs a 'content'")
        out.append({"role": m.get("role", "user"), "content": clean_text(m["content"])})
    return out


def _llm_message(exc: Exception) -> str:
    if isinstance(exc, LLMUnavailable):
        return f"LLM unavailable: {exc}. The entry is saved; its memories will be made when the LLM is back."
    return f"LLM reply unusable: {exc}"
