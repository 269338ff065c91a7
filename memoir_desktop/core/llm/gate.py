"""The one gate every LLM request passes: what it is for, and nothing private in it.

A feature asks the gate for a `Clearance` under a registered purpose (purposes.py), naming the
entries and memories it means to send. The gate reads their privacy afresh from SQLite — an entry
made private a second ago counts — and the feature builds its request from what the clearance
keeps: private entries, and memories whose every source entry is private, are left out before the
request exists, and the clearance counts them so the job or screen can say "1 private entry left
out". The client (client.py) accepts no request without a clearance and has the clearance check
the finished messages once more against the text of every private entry and private-only memory:
a feature that forgot to filter is refused there, and the log names the purpose, never the text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import text as sql

from memoir_desktop.core.llm.errors import LLMError
from memoir_desktop.core.llm.purposes import Purpose, purpose

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from memoir_desktop.core.llm.client import LLMClient, Tool

log = logging.getLogger(__name__)

# A private text shorter than this is too common to tell apart ("좋았다."); an entry is checked by
# its opening words, which every prompt that quotes it carries (letters cut entries at their end).
MIN_PROBE = 16
PROBE_CHARS = 60


class PrivateRefused(LLMError):
    """A request carried the words of a private entry or memory: it was not sent."""


def _norm(s: str) -> str:
    return " ".join(s.split())


class PrivacyLens:
    """What is private now, read from the journal's SQLite at each question."""

    def __init__(self, engine: Engine):
        self.engine = engine

    def private_entries(self, ids: Iterable[int]) -> set[int]:
        ids = sorted({int(i) for i in ids})
        if not ids:
            return set()
        with self.engine.connect() as con:
            rows = con.execute(sql(f"SELECT id FROM entry WHERE private = 1 AND id IN ({','.join(map(str, ids))})"))
            return {int(r[0]) for r in rows}

    def private_memories(self, ids: Iterable[str]) -> set[str]:
        """Memories whose every source entry is private (a memory with no source entry is the user's own)."""
        ids = sorted({str(i) for i in ids})
        if not ids:
            return set()
        marks = ",".join(f":m{n}" for n in range(len(ids)))
        with self.engine.connect() as con:
            rows = con.execute(sql(
                "SELECT ms.memory_id FROM memory_source ms JOIN entry e ON e.id = ms.entry_id "
                f"WHERE ms.memory_id IN ({marks}) GROUP BY ms.memory_id HAVING MIN(e.private) = 1"),
                {f"m{n}": i for n, i in enumerate(ids)})
            return {str(r[0]) for r in rows}

    def private_texts(self) -> list[str]:
        """Every private entry's opening words and every private-only memory's text, for the last check."""
        with self.engine.connect() as con:
            entries = [r[0] for r in con.execute(sql("SELECT content FROM entry WHERE private = 1"))]
            memories = [r[0] for r in con.execute(sql(
                "SELECT m.text FROM memory m WHERE m.id IN (SELECT ms.memory_id FROM memory_source ms "
                "JOIN entry e ON e.id = ms.entry_id GROUP BY ms.memory_id HAVING MIN(e.private) = 1)"))]
        probes = [_norm(t)[:PROBE_CHARS] for t in entries] + [_norm(t) for t in memories]
        return [p for p in probes if len(p) >= MIN_PROBE]


def _entry_id(item: Any) -> int | None:
    if isinstance(item, int):
        return item
    if isinstance(item, dict):
        v = item.get("entry_id", item.get("id"))
        return int(v) if v is not None else None
    v = getattr(item, "id", None)
    return int(v) if v is not None else None


def _memory_id(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    v = item.get("id") if isinstance(item, dict) else getattr(item, "id", None)
    return str(v) if v is not None else None


@dataclass
class Clearance:
    """The gate's answer for one request: which of the named items may go, and how many may not."""

    purpose: Purpose
    private_entries: set[int] = field(default_factory=set)
    private_memories: set[str] = field(default_factory=set)
    lens: PrivacyLens | None = None

    @property
    def left_out(self) -> int:
        """Private entries left out of the request."""
        return len(self.private_entries)

    def entry_ok(self, item: Any) -> bool:
        return _entry_id(item) not in self.private_entries

    def memory_ok(self, item: Any) -> bool:
        return _memory_id(item) not in self.private_memories

    def keep_entries(self, items: Iterable[Any]) -> list:
        return [i for i in items if self.entry_ok(i)]

    def keep_memories(self, items: Iterable[Any]) -> list:
        return [i for i in items if self.memory_ok(i)]

    def check(self, messages: list[dict]) -> None:
        """Refuse the finished request if it quotes anything private (client.py calls this last)."""
        if self.lens is None:
            return
        body = _norm("\n".join(str(m.get("content") or "") for m in messages))
        for probe in self.lens.private_texts():
            if probe in body:
                log.error("a %s request quoted a private entry or memory: it was not sent", self.purpose.name)
                raise PrivateRefused(f"{self.purpose.name}: the request carried private words and was not sent")


class Gate:
    """What every feature holds instead of the client: the same calls, each under a purpose."""

    def __init__(self, client: LLMClient, lens: PrivacyLens | None):
        self.client = client
        self.lens = lens

    # The client's own state, read through the gate so features need nothing else.
    @property
    def configured(self) -> bool:
        return self.client.configured

    @property
    def capabilities(self):
        return self.client.capabilities

    @property
    def model(self) -> str:
        return self.client.model

    def echoes(self, stage: str) -> int:
        return self.client.echoes(stage)

    def not_asked(self, stage: str) -> None:
        self.client.not_asked(stage)

    def set_echoes(self, stage: str, n: int) -> None:
        self.client.set_echoes(stage, n)

    def echoes_example(self, messages: list[dict], tool: Tool) -> bool | None:
        """A made-up request (no journal text), under the probe's purpose: see LLMClient.echoes_example."""
        return self.client.echoes_example(messages, tool, clearance=self.admit("probe"))

    def probe(self, force: bool = False):
        return self.client.probe(force)

    def ping(self) -> str:
        return self.client.ping()

    def list_models(self) -> list[str]:
        return self.client.list_models()

    def admit(self, name: str, *, entries: Iterable[Any] = (), memories: Iterable[Any] = ()) -> Clearance:
        p = purpose(name)
        if self.lens is None:
            return Clearance(p)
        eids = [i for i in (_entry_id(e) for e in entries) if i is not None]
        mids = [i for i in (_memory_id(m) for m in memories) if i is not None]
        c = Clearance(p, self.lens.private_entries(eids), self.lens.private_memories(mids), self.lens)
        if c.private_entries or c.private_memories:
            log.info("%s: %d private entries and %d private memories left out", name, len(c.private_entries),
                     len(c.private_memories))
        return c

    def complete(self, name: str | Clearance, messages: list[dict], *, temperature: float = 0.2) -> str:
        c = name if isinstance(name, Clearance) else self.admit(name)
        return self.client.complete(c.purpose.name, messages, clearance=c, temperature=temperature)

    def call_tool(self, name: str | Clearance, messages: list[dict], tool: Tool, *, max_tokens: int | None = None):
        """`max_tokens`: a smaller cap than the purpose's, for a reply that cannot need more."""
        c = name if isinstance(name, Clearance) else self.admit(name)
        return self.client.call_tool(c.purpose.name, messages, tool, clearance=c, max_tokens=max_tokens)

    def prefill(self, c: Clearance, messages: list[dict], tool: Tool) -> bool:
        """A request's beginning read ahead by a server near the diarist (LLMClient.prefill)."""
        return self.client.prefill(c.purpose.name, messages, tool, clearance=c)
