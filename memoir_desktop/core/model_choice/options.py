"""The `SearchModels` part: the models search and the companion read with, as the user chooses them.

What Settings → Search offers: the models that can be downloaded (a larger search model, a reading
model for the companion's context) and whether each is here, whether the English-only model's
packages are installed, the reranker's state, and what letting the LLM pick memories would cost per
question on this journal."""

from __future__ import annotations

from collections.abc import Callable

from sqlmodel import Session, col, select

from memoir_desktop.core.inputs import InvalidInput
from memoir_desktop.core.model_choice.switcher import ModelSwitcher
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.search_models.embedder import minilm_installed
from memoir_desktop.core.storage.models import Memory


class SearchModels:
    def __init__(self, engine, context_rerank, switcher: ModelSwitcher, *, llm: Callable, settings: Callable):
        self.engine, self.context_rerank, self.switcher = engine, context_rerank, switcher
        self._llm, self._settings = llm, settings

    def available(self, user_id: str = "me") -> dict:
        # Here: llm_rerank brings the openai SDK (0.75 s), which opening a journal never needs.
        from memoir_desktop.core.search.llm_rerank import estimate_tokens

        with Session(self.engine) as s:
            recent = s.exec(select(Memory).where(col(Memory.user_id) == user_id, col(Memory.state) == "active")
                            .order_by(col(Memory.created_at).desc()).limit(30)).all()
        shown = [{"id": m.id, "text": m.text, "created_at": m.created_at} for m in recent]
        return {"models": [model_catalog.describe(m) for m in model_catalog.CATALOG.values()],
                "english_model": minilm_installed(),  # the minilm extra: a pip install adds it, not a download
                "embed_model": self._settings().embed_model, "switch": self.switcher.state(),
                "reranker": self.context_rerank.status(), "llm_configured": self._llm().configured,
                "llm_tokens": estimate_tokens("요즘 어떻게 지내?", shown) if shown else 0}

    def configure(self) -> None:
        """The reranker the settings choose, tried anew (after a download, a removal, new settings)."""
        self.context_rerank.configure(self._settings().search_reranker, self._llm)

    def warm(self) -> None:
        """Load what the first answer would otherwise wait for (the chosen reranker)."""
        self.context_rerank.warm()

    def install(self, key: str, progress=None, cancelled=None) -> str:
        """Download a catalog model (resumable, verified); raises ModelUnavailable saying why."""
        where = model_catalog.install(model_catalog.CATALOG[key], progress=progress, cancelled=cancelled)
        self.configure()
        return str(where)

    def remove(self, key: str) -> None:
        """Delete a downloaded model (not the search model in use or being prepared: InvalidInput)."""
        settings = self._settings()
        if key in (settings.embed_model, settings.embed_model_next):
            raise InvalidInput("This model is what search uses now: choose another one first, then remove it.")
        model_catalog.remove(model_catalog.CATALOG[key])
        self.configure()

    # -- the search model: another one's index built beside the one in use (switcher.py) -----------

    @property
    def embedder(self):
        return self.switcher.store.embedder

    @embedder.setter
    def embedder(self, embedder) -> None:
        self.switcher.use(embedder)

    @property
    def index_switch(self):
        """A new embedding model's index being built, or None."""
        return self.switcher.switch

    @property
    def switch_progress(self) -> dict | None:
        return self.switcher.progress

    def switch(self, model: str) -> None:
        """Start building `model`'s index beside the one in use (ModelSwitcher.start)."""
        self.switcher.start(model)

    def step_switch(self, limit: int = 32, should_stop=None) -> dict:
        """Embed the next few items into the new model's index (ModelSwitcher.step)."""
        return self.switcher.step(limit, should_stop)

    def cancel_switch(self) -> None:
        self.switcher.cancel()
