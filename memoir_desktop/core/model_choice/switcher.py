"""`ModelSwitcher`: changing the embedding model the journal searches with, as the user does it
(Settings → Search, `memoir-cli search-model`): the choice saved first, the new index built a chunk
at a time beside the one in use (index_switch.py), then the swap, under the write lock so that no
change lands between the last copy and the swap.

Threading rule: `step` runs on the writer (the app's background loop); `cancel` from any thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from memoir_desktop.core.model_choice.index_switch import IndexSwitch, SwitchFailed


class ModelSwitcher:
    def __init__(self, engine, vectors, store, graph, write_lock: threading.Lock, metrics, *,
                 settings: Callable, persist: Callable[..., None]):
        self.engine, self.vectors, self.store, self.graph = engine, vectors, store, graph
        self.write_lock, self.metrics = write_lock, metrics
        self._settings, self._persist = settings, persist
        self.switch: IndexSwitch | None = None  # a new embedding model's index being built
        self.progress: dict | None = None
        nxt = settings().embed_model_next
        if nxt and nxt != settings().embed_model:
            self.switch = self._new(nxt)  # a build cut by a quit continues

    def start(self, model: str) -> None:
        """Start building the search index for `model` beside the one in use, which keeps serving
        search until the new one is complete. The choice is saved first: a quit or a kill continues
        the build at the next start."""
        if self.switch is not None:
            if self.switch.model == model:
                return
            self.cancel()
        self._persist(embed_model=self._settings().embed_model, embed_model_next=model)
        self.switch = self._new(model)
        self.progress = {"model": model, "done": 0, "total": 0, "finished": False}

    def choose(self, chosen: str, *, rebuild_now: bool) -> bool:
        """The model the user chose in the settings: the one in use (a build underway stops), the one
        already being prepared, or a new one whose index is started (and finished now with
        `rebuild_now`). True when a build was started."""
        in_use = self._settings().embed_model
        if chosen == in_use:
            self.cancel()
            return False
        # The caller saved the dialog's choice; the file names the model in use until its
        # replacement's index is complete (else the next start would switch without one).
        self._persist(embed_model=in_use)
        if chosen == self._settings().embed_model_next:
            return False  # already being prepared
        self.start(chosen)
        while rebuild_now and not self.step(limit=256)["finished"]:
            pass
        return True

    def step(self, limit: int = 32, should_stop=None) -> dict:
        """Embed the next few items into the new model's index; when it is complete, the model changes
        and the old index goes. Returns {model, done, total, finished}. Raises SwitchFailed (the new
        model cannot be used; the model in use stays, the choice is undone)."""
        sw = self.switch
        if sw is None:
            return {"model": self._settings().embed_model, "done": 0, "total": 0, "finished": True}
        try:
            with self.store.embedder.background():  # searches meanwhile keep to one thread
                step = sw.step(limit, should_stop)
        except SwitchFailed:
            self.cancel()
            raise
        if step is None or (step.finished and not self._finish(sw)):
            return {"model": sw.model, "done": 0, "total": 0, "finished": False, "stopped": True}
        self.progress = {"model": step.model, "done": step.done, "total": step.total, "finished": step.finished}
        return dict(self.progress)

    def cancel(self) -> None:
        """Stop building a new model's index (its collections go); the model in use stays."""
        with self.write_lock:
            sw, self.switch, self.progress = self.switch, None, None
        if sw is not None:
            sw.abandon()  # waits for a chunk under way
        if self._settings().embed_model_next:
            self._persist(embed_model_next="")

    def use(self, embedder) -> None:
        """Search and the graph embed with `embedder` from now on (its index must hold everything)."""
        self.store.set_embedder(embedder)
        self.graph.embedder = embedder

    def state(self) -> dict | None:
        if self.progress:
            return dict(self.progress)
        if self.switch:  # resumed at start, no step yet
            return {"model": self.switch.model, "done": 0, "total": 0, "finished": False}
        return None

    def _new(self, model: str) -> IndexSwitch:
        return IndexSwitch(model, self.engine, self.vectors, self.store.collections, self.write_lock,
                           metric_sink=self.metrics.record)

    def _finish(self, sw: IndexSwitch) -> bool:
        """The swap; False when the switch was stopped meanwhile."""
        with self.write_lock:  # no change lands between the last copy and the swap
            if self.switch is not sw:
                return False
            sw.store_node_vectors()
            self.store.collections.next = None
            self.use(sw.embedder)
            self._persist(embed_model=sw.model, embed_model_next="")
            self.switch = None
        self.store.collections.drop_other_models(keep={sw.model})
        for user_id in self.store.users():
            self.graph.store.invalidate_cache(user_id)
        return True
