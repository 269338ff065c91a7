"""What an operation changed, so each screen refreshes only what it shows (Anki's `OpChanges`).

Every job result and every user action's result carries one of these (as `result["changes"]`,
a plain dict, so it survives the job table's JSON column): the memories and entries touched,
and whether the graph, the proposals, the summary or the settings moved.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Changes:
    memories: frozenset[str] = field(default_factory=frozenset)
    entries: frozenset[int] = field(default_factory=frozenset)
    graph: bool = False
    proposals: bool = False
    summary: bool = False
    settings: bool = False

    @classmethod
    def of(cls, *, memories: Iterable[str | None] = (), entries: Iterable[int | None] = (), graph: bool = False,
           proposals: bool = False, summary: bool = False, settings: bool = False) -> Changes:
        return cls(frozenset(m for m in memories if m), frozenset(e for e in entries if e is not None),
                   graph, proposals, summary, settings)

    @classmethod
    def from_dict(cls, d: dict | None) -> Changes:
        d = d or {}
        return cls.of(memories=d.get("memories", ()), entries=d.get("entries", ()), graph=bool(d.get("graph")),
                      proposals=bool(d.get("proposals")), summary=bool(d.get("summary")),
                      settings=bool(d.get("settings")))

    def to_dict(self) -> dict:
        return {"memories": sorted(self.memories), "entries": sorted(self.entries), "graph": self.graph,
                "proposals": self.proposals, "summary": self.summary, "settings": self.settings}

    def __or__(self, other: Changes) -> Changes:
        return Changes(self.memories | other.memories, self.entries | other.entries, self.graph or other.graph,
                       self.proposals or other.proposals, self.summary or other.summary,
                       self.settings or other.settings)

    def __bool__(self) -> bool:
        return bool(self.memories or self.entries or self.graph or self.proposals or self.summary or self.settings)
