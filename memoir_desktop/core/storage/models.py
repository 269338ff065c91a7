"""SQLite tables. SQLite is the system of record; Qdrant is derived from these rows.

Times are naive local wall-clock datetimes: a journal is about the writer's own days, and
"yesterday" must mean the writer's yesterday, not UTC's.
"""

from __future__ import annotations

import uuid as uuidlib
from datetime import datetime

from pydantic import NaiveDatetime
from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel


def now() -> datetime:
    return datetime.now().replace(microsecond=0)


def new_uid() -> str:
    """A global id: the same row on every computer a journal is synced to (core/sync)."""
    return uuidlib.uuid4().hex


def pk(row) -> int:
    """The id of a row that was saved (a saved row always has one; the type says `int | None`)."""
    assert row.id is not None, f"{type(row).__name__} has no id yet"
    return row.id


class Entry(SQLModel, table=True):
    """One journal message (user or assistant), committed before anything else happens. The user's
    own: edited in place (EntryHistory keeps the previous text), moved to another date, put in the
    trash (`deleted_at`; restorable) and only purged from the trash."""

    __table_args__ = (Index("ix_entry_user_time", "user_id", "created_at"),
                      Index("ix_entry_user_deleted", "user_id", "deleted_at"),
                      Index("ix_entry_user_kind", "user_id", "kind"),
                      Index("ix_entry_uuid", "uuid", unique=True))
    id: int | None = Field(default=None, primary_key=True)
    # The entry's id on every computer (ids are local integers); sync translates references by it.
    uuid: str | None = Field(default_factory=new_uid)
    user_id: str = Field(index=True)
    role: str  # user | assistant
    content: str
    created_at: NaiveDatetime = Field(default_factory=now)  # the day and time it is written for
    source: str = "journal"  # journal | chat | api | import
    updated_at: NaiveDatetime | None = None  # last edit of its text (a move or privacy change is not one)
    deleted_at: NaiveDatetime | None = None  # in the trash since
    tags: list = Field(default_factory=list, sa_column=Column(JSON))
    time_zone: str | None = None  # where it was written, when known (imports)
    source_ref: str | None = None  # the id it had where it was imported from (a re-import skips it)
    reply_to: int | None = None  # a companion's reply: the user's entry it answers (they go to the trash together)
    # "entry" (what the user or the companion wrote) | "letter" (memoir's weekly / monthly letter: searchable
    # and exported like an entry, but never memorised, never in the companion's context).
    kind: str = "entry"
    # When the write path read it (its memorize job done, on this computer or another: sync carries it);
    # None until then, and again after an edit. A computer with an AI takes over an entry left unread where
    # it was written (sync/service.py).
    read_at: NaiveDatetime | None = None
    # Journaled only: never sent to an LLM (no extraction, no summary, no answer context); found by
    # local search alone.
    private: bool = False


class EntryHistory(SQLModel, table=True):
    """One change to an entry: EDIT (text), MOVE (date), DELETE (to the trash), RESTORE."""

    __tablename__ = "entry_history"  # type: ignore[assignment]
    id: int | None = Field(default=None, primary_key=True)
    entry_id: int = Field(foreign_key="entry.id", index=True)
    event: str
    old_content: str | None = None
    new_content: str | None = None
    old_time: NaiveDatetime | None = None
    new_time: NaiveDatetime | None = None
    created_at: NaiveDatetime = Field(default_factory=now)


class MemorySource(SQLModel, table=True):
    """An entry a memory came from or was confirmed by (a memory can have several). Deleting an
    entry invalidates the memories whose only source it was; the others stay."""

    __tablename__ = "memory_source"  # type: ignore[assignment]
    memory_id: str = Field(foreign_key="memory.id", primary_key=True)
    entry_id: int = Field(foreign_key="entry.id", primary_key=True, index=True)
    created_at: NaiveDatetime = Field(default_factory=now)


class Memory(SQLModel, table=True):
    __table_args__ = (
        Index("ix_memory_user_state_created", "user_id", "state", "created_at"),
        Index("ix_memory_user_state_about", "user_id", "state", "about_end", "about_start"),
        Index("ix_memory_user_recurrence", "user_id", "recurrence"),
    )
    id: str = Field(primary_key=True)
    user_id: str
    text: str
    hash: str = Field(index=True)
    state: str = "active"  # active | invalid
    memory_type: str = "semantic"  # semantic | procedural
    created_at: NaiveDatetime = Field(default_factory=now)  # when the fact was recorded
    updated_at: NaiveDatetime = Field(default_factory=now)
    # The span the fact is about, where the text says (from the temporal module).
    about_start: NaiveDatetime | None = None
    about_end: NaiveDatetime | None = None
    # A habit or routine ("매주 금요일", "every Friday"): an RRULE subset, with no single date.
    recurrence: str | None = None
    category: str | None = None  # people | places | work | health | preferences | habits | plans | ...
    # Why an invalid memory is invalid when it was not forgotten by a person or the LLM:
    # "source deleted" (its only entry is in the trash; restored with it), "source edited".
    invalid_reason: str | None = None
    # "source changed": its entry was edited or moved and the write path has not re-read it yet.
    flag: str | None = None
    source_entry_id: int | None = Field(default=None, foreign_key="entry.id")
    user_edited: bool = False
    meta: dict = Field(default_factory=dict, sa_column=Column(JSON))


class History(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    memory_id: str = Field(foreign_key="memory.id", index=True)
    event: str  # ADD | UPDATE | DELETE | RESTORE | CONSOLIDATE
    old_memory: str | None = None
    new_memory: str | None = None
    actor: str = "llm"  # llm | user | system
    created_at: NaiveDatetime = Field(default_factory=now)
    entry_id: int | None = None
    job_id: int | None = None
    note: str | None = None


class Summary(SQLModel, table=True):
    """The running conversation summary S of Mem0, one row per refresh (latest wins)."""

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(index=True)
    text: str
    upto_entry_id: int | None = None
    created_at: NaiveDatetime = Field(default_factory=now)


class Job(SQLModel, table=True):
    """A durable unit of background work. States: waiting (a chat turn whose answer is still
    coming: its entries are committed, the job runs once the reply is added, or at the next
    start if the app was killed meanwhile), pending, running, done, failed."""

    id: int | None = Field(default=None, primary_key=True)
    kind: str  # memorize | summary | consolidate
    user_id: str
    state: str = Field(default="pending", index=True)
    payload: dict = Field(default_factory=dict, sa_column=Column(JSON))
    result: dict = Field(default_factory=dict, sa_column=Column(JSON))
    attempts: int = 0
    error: str | None = None
    # The cause of `error` in one word (llm/errors.py Explanation.kind: not_running, timeout, bad_reply, …):
    # what a screen says, in its own language, about why the job waits or failed.
    error_kind: str | None = None
    raw_reply: str | None = None
    created_at: NaiveDatetime = Field(default_factory=now)
    updated_at: NaiveDatetime = Field(default_factory=now)


class Proposal(SQLModel, table=True):
    """An LLM change held back for the user's confirmation (protected or over the limit)."""

    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(index=True)
    memory_id: str = Field(foreign_key="memory.id")
    event: str  # UPDATE | DELETE
    new_text: str | None = None
    reason: str = ""
    state: str = "pending"  # pending | accepted | rejected
    job_id: int | None = None
    created_at: NaiveDatetime = Field(default_factory=now)


class Metric(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    stage: str = Field(index=True)  # extraction | update | search | answer | embedding | summary
    ms: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    job_id: int | None = None
    created_at: NaiveDatetime = Field(default_factory=now)


class IndexState(SQLModel, table=True):
    """What the derived vector index was built with, to detect a stale or foreign index."""

    name: str = Field(primary_key=True)  # collection name
    user_id: str
    kind: str  # memory | entry
    model: str
    dim: int
    built_at: NaiveDatetime = Field(default_factory=now)


class IndexPending(SQLModel, table=True):
    """A memory or entry whose change is committed but whose vector may not have reached the index:
    the app can be killed between the two, and an old vector would then stay for good (a missing one
    is found by comparing ids; a stale one is not). Written in the change's own transaction, removed
    once the index has it; `reconcile` applies what is left. Derived bookkeeping, never exported."""

    __tablename__ = "index_pending"  # type: ignore[assignment]  # SQLModel types it as a declared_attr
    kind: str = Field(primary_key=True)  # "mem" | "ent"
    item: str = Field(primary_key=True)  # memory id, or entry id as text
    user_id: str


class FollowUp(SQLModel, table=True):
    """What became of a follow-up on a plan (reflection/followups.py finds the plans; this row keeps
    the user's decision and the LLM's phrasing). No foreign key: a purge deletes these rows itself."""

    __tablename__ = "follow_up"  # type: ignore[assignment]
    memory_id: str = Field(primary_key=True)
    user_id: str = Field(index=True)
    state: str = "open"  # open | dismissed | answered
    question: str | None = None  # phrased by the LLM, when one was connected
    entry_id: int | None = None  # the entry that answered it
    updated_at: NaiveDatetime = Field(default_factory=now)


class Meta(SQLModel, table=True):
    key: str = Field(primary_key=True)
    value: str


class VectorCollection(SQLModel, table=True):
    """An encrypted journal's vector collection (its points live in `vector_point`, encrypted with
    the database; a plain journal keeps them in Qdrant's own files instead)."""

    __tablename__ = "vector_collection"  # type: ignore[assignment]
    name: str = Field(primary_key=True)
    dim: int


class VectorPoint(SQLModel, table=True):
    __tablename__ = "vector_point"  # type: ignore[assignment]
    collection: str = Field(primary_key=True)
    item: str = Field(primary_key=True)  # JSON of the item id (memory UUIDs are strings, entry ids ints)
    vec: bytes  # float32, unit length
