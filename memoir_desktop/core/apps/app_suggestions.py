"""Memories another app (an MCP client) suggests: held until the user accepts or rejects them.

Why a table of its own rather than a Proposal with no memory: a Proposal is the LLM's change to a
memory that exists (UPDATE or DELETE of `memory_id`, a foreign key every reader of proposals
relies on); a suggestion is a memory that does not exist yet, from an app rather than the write
path. Making `proposal.memory_id` nullable would need the table rebuilt (SQLite cannot relax NOT
NULL in place) and a "no memory" branch in every place proposals are read, shown or decided.

Accepting one is mem.memories.decide_suggestion: the memory is made in the same transaction that marks
the suggestion accepted, so a crash cannot leave a memory with a suggestion still pending.
"""

from __future__ import annotations

import re

from pydantic import NaiveDatetime
from sqlalchemy import Index
from sqlmodel import Field, Session, SQLModel, col, select

from memoir_desktop.core.inputs import InvalidInput, NotFound
from memoir_desktop.core.storage.models import now

PENDING, ACCEPTED, REJECTED = "pending", "accepted", "rejected"
# A memory is a fact or two, not a document: an app that sends more is pasting, not remembering.
MAX_CHARS = 1_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class MemorySuggestion(SQLModel, table=True):
    __tablename__ = "memory_suggestion"  # type: ignore[assignment]
    __table_args__ = (Index("ix_memory_suggestion_user_state", "user_id", "state"),)
    id: int | None = Field(default=None, primary_key=True)
    user_id: str
    app: str  # the connected app's name (connected_apps.py)
    text: str
    state: str = PENDING
    memory_id: str | None = None  # the memory it became, once accepted
    created_at: NaiveDatetime = Field(default_factory=now)
    decided_at: NaiveDatetime | None = None


def checked_text(text) -> str:
    """An app's memory as it may be kept, or InvalidInput saying in plain words why not."""
    if not isinstance(text, str):
        raise InvalidInput("A memory must be written as text.")
    text = " ".join(_CONTROL.sub("", text).split())
    if not text:
        raise InvalidInput("The memory is empty: write what you learned about the diarist in a sentence.")
    if len(text) > MAX_CHARS:
        raise InvalidInput(f"A memory is a sentence or two, at most {MAX_CHARS:,} characters; "
                           f"this one has {len(text):,}.")
    return text


def suggestion_dict(r: MemorySuggestion) -> dict:
    return {"id": r.id, "app": r.app, "text": r.text, "state": r.state, "memory_id": r.memory_id,
            "created_at": r.created_at.isoformat(), "decided_at": r.decided_at.isoformat() if r.decided_at else None}


def suggest(engine, app: str, text: str, *, user_id: str = "me") -> dict:
    """Hold `text` (already checked) for the user; the same text still pending from the same app is
    not held twice (an agent may repeat itself)."""
    with Session(engine) as s:
        row = s.exec(select(MemorySuggestion).where(
            col(MemorySuggestion.user_id) == user_id, col(MemorySuggestion.app) == app,
            col(MemorySuggestion.state) == PENDING, col(MemorySuggestion.text) == text)).first()
        if row is None:
            row = MemorySuggestion(user_id=user_id, app=app, text=text)
            s.add(row)
            s.commit()
            s.refresh(row)
        return suggestion_dict(row)


def pending(engine, *, user_id: str = "me") -> list[dict]:
    """The suggestions waiting for the user, oldest first."""
    with Session(engine) as s:
        rows = s.exec(select(MemorySuggestion).where(col(MemorySuggestion.user_id) == user_id,
                                                     col(MemorySuggestion.state) == PENDING)
                      .order_by(col(MemorySuggestion.id))).all()
        return [suggestion_dict(r) for r in rows]


def take_pending(s: Session, suggestion_id: int, user_id: str) -> MemorySuggestion:
    row = s.get(MemorySuggestion, suggestion_id)
    if row is None or row.user_id != user_id or row.state != PENDING:
        raise NotFound(suggestion_id, "suggestion")
    return row


def mark(s: Session, row: MemorySuggestion, accepted: bool, memory_id: str | None = None) -> None:
    """Staged in the caller's transaction. A decided suggestion keeps no text: a rejected one because
    the user said it is not so; an accepted one because its memory holds the words now, and a purge
    of that memory must not leave a copy here."""
    row.state = ACCEPTED if accepted else REJECTED
    row.memory_id = memory_id
    row.decided_at = now()
    row.text = ""
    s.add(row)
