"""The one search field: what the user wrote and what memoir remembers, for a query analysed once.
Listing, not ranking: a query with nothing to find lists nothing (search/first_stage.py)."""

from __future__ import annotations

from datetime import datetime

from memoir_desktop.core.journal.entries import Journal
from memoir_desktop.core.search import Retriever


class SearchField:
    def __init__(self, retriever: Retriever, journal: Journal):
        self.retriever, self.journal = retriever, journal

    def find(self, query: str, *, user_id: str = "me", limit: int = 20, now: datetime | None = None) -> dict:
        """Entries and memories for a query, analysed once."""
        q = self.retriever.read_query(query, now)
        return {"entries": self.journal.search(user_id, q, limit=limit),
                "memories": self.retriever.search(user_id, q, limit=limit, listing=True)}

    def search_entries(self, query: str, *, user_id: str = "me", limit: int = 20, now: datetime | None = None
                       ) -> list[dict]:
        """What the user wrote, by words (and meaning when the model is there), with highlights."""
        return self.journal.search(user_id, self.retriever.read_query(query, now), limit=limit)
