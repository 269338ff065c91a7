"""Graph memory (Mem0^g): its tables and the store behind them.

Edges are bi-temporal, as in Zep/Graphiti: `valid_from`/`valid_to` say when a fact was true in
the user's life (from the text, often unknown); `recorded_at`/`expired_at` say when the journal
learned it and when a later entry contradicted it. Edges are never deleted, so the graph as it
stood on any past date can be rebuilt (`as_of`).

Threading rule: reads may run on any thread (each opens its own session); writes take the
caller's open Session, so they commit or roll back with the rest of the caller's transaction,
and are made by the single background writer only.

Also here: the graph's naming conventions (the user's own node, normalised names and relations)
and `GraphIndex`, the per-user search index derived from the store (name and triplet vectors),
which is never stored and is rebuilt whenever the store's generation moves.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import NaiveDatetime
from sqlalchemy import Column, Index, LargeBinary, and_, func, or_
from sqlmodel import Field, Session, SQLModel, col, select

from memoir_desktop.core.storage.models import Entry, Job, now, pk

if TYPE_CHECKING:
    import networkx as nx

log = logging.getLogger(__name__)

USER_NODE_NAME = "나"  # the user's own node: one per user, where every first-person fact meets
USER_NODE_TYPE = "person"
_TYPE_ALIASES = {"location": "place", "city": "place", "country": "place", "org": "organization",
                 "company": "organization", "animal": "pet", "people": "person", "hobby": "activity",
                 "object": "thing", "item": "thing", "product": "thing"}
_EDGE_PUNCT = re.compile(r"^[\s\"'`“”‘’.,!?()\[\]<>]+|[\s\"'`“”‘’.,!?()\[\]<>]+$")


def normalize_name(name: str) -> str:
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    return _EDGE_PUNCT.sub("", " ".join(text.split()))


def normalize_relation(relation: str) -> str:
    rel = " ".join(unicodedata.normalize("NFKC", str(relation)).split())
    if rel.isascii():
        rel = re.sub(r"[\s\-]+", "_", rel.lower()).strip("_")
    return rel


def normalize_type(type_) -> str:
    t = normalize_name(type_ or "") or "thing"
    return _TYPE_ALIASES.get(t, t)


class GraphNode(SQLModel, table=True):
    __tablename__ = "graph_node"  # type: ignore[assignment]  # SQLModel types it as a declared_attr
    id: int | None = Field(default=None, primary_key=True)
    user_id: str = Field(index=True)
    name: str
    type: str = "thing"
    # float32 bytes of the name's embedding, and the model that made it: vectors of two models
    # are not comparable, so a node embedded by another model is re-embedded before use.
    embedding: bytes | None = Field(default=None, sa_column=Column(LargeBinary))
    embed_model: str | None = None
    created_at: NaiveDatetime = Field(default_factory=now)
    source_entry_id: int | None = Field(default=None, foreign_key="entry.id")
    mentions: int = 1


class GraphEdge(SQLModel, table=True):
    __tablename__ = "graph_edge"  # type: ignore[assignment]
    __table_args__ = (Index("ix_graph_edge_user_valid", "user_id", "valid"),)
    id: int | None = Field(default=None, primary_key=True)
    user_id: str
    source_id: int = Field(foreign_key="graph_node.id", index=True)
    relation: str
    target_id: int = Field(foreign_key="graph_node.id", index=True)
    valid: bool = True
    valid_from: NaiveDatetime | None = None  # the fact became true (from the text)
    valid_to: NaiveDatetime | None = None  # the fact stopped being true
    recorded_at: NaiveDatetime = Field(default_factory=now)  # the journal learned it
    expired_at: NaiveDatetime | None = None  # a later entry contradicted it
    source_entry_id: int | None = Field(default=None, foreign_key="entry.id")
    job_id: int | None = None
    invalidated_by: int | None = Field(default=None, foreign_key="graph_edge.id")
    # The entry whose move to the trash hid this edge (it comes back when the entry is restored).
    hidden_with_entry: int | None = None


GRAPH_TABLES = (GraphNode, GraphEdge)


def is_user_node(node: GraphNode) -> bool:
    return node.name == USER_NODE_NAME and node.type == USER_NODE_TYPE


def iso(t: datetime | None) -> str | None:
    return t.isoformat() if t else None


def unit(m) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norm = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.where(norm == 0, 1, norm)


def edge_dict(e: GraphEdge, names: dict[int, str]) -> dict:
    src, dst = names.get(e.source_id, "?"), names.get(e.target_id, "?")
    return {"id": e.id, "triplet": f"{src} {e.relation} {dst}", "source": src, "relation": e.relation,
            "target": dst, "source_id": e.source_id, "target_id": e.target_id, "valid": e.valid,
            "valid_from": iso(e.valid_from), "valid_to": iso(e.valid_to), "recorded_at": iso(e.recorded_at),
            "expired_at": iso(e.expired_at), "source_entry_id": e.source_entry_id}


def vector_of(node: GraphNode) -> np.ndarray | None:
    if not node.embedding:
        return None
    return np.frombuffer(node.embedding, dtype=np.float32)


def vector_bytes(vec) -> bytes:
    return np.asarray(vec, dtype=np.float32).tobytes()


def held_at(recorded_at: datetime | None, expired_at: datetime | None, when: datetime) -> bool:
    """Whether the journal held a fact recorded then (and expired then, if ever) as true at `when`:
    system time, not fact time. An unknown recording time counts as always known."""
    return (recorded_at is None or recorded_at <= when) and (expired_at is None or expired_at > when)


def true_during(edge: GraphEdge, lo: datetime, hi: datetime) -> bool:
    """Whether the fact held at some time in [lo, hi] (fact time; recording time where unknown)."""
    start, end = edge.valid_from or edge.recorded_at, edge.valid_to or edge.expired_at
    return start <= hi and (end is None or end >= lo)


class GraphStore(ABC):
    """Where the graph lives. A backend (SQLite here; Neo4j could be another) implements the
    reads and the writes; `s` in a write is the backend's open transaction."""

    def __init__(self):
        self._lock = threading.Lock()
        self._generation: dict[str, int] = {}
        self._nx: dict[str, tuple[int, nx.MultiDiGraph]] = {}

    # -- reads --------------------------------------------------------------------------

    @abstractmethod
    def nodes(self, user_id: str) -> list[GraphNode]: ...

    @abstractmethod
    def node(self, user_id: str, node_id: int) -> GraphNode | None: ...

    @abstractmethod
    def edges(self, user_id: str, *, include_invalid: bool = False,
              as_of: datetime | None = None) -> list[GraphEdge]:
        """Valid edges; with `include_invalid` all of them; with `as_of` those the journal held
        as true at that time (recorded by then and not yet expired), whatever their state now."""

    @abstractmethod
    def edges_of(self, user_id: str, node_id: int) -> list[GraphEdge]:
        """Every edge touching the node, invalid ones included."""

    @abstractmethod
    def neighbours(self, user_id: str, node_ids: Iterable[int]) -> list[GraphEdge]:
        """Valid edges with an end in `node_ids` (one hop)."""

    # -- writes inside the caller's transaction -----------------------------------------

    @abstractmethod
    def edges_from_entry(self, s, user_id: str, entry_id: int) -> list[GraphEdge]:
        """The edges an entry produced (any state), read in the caller's session."""

    @abstractmethod
    def load_node(self, s, node_id: int) -> GraphNode | None:
        """The node as the open transaction sees it (any user: the caller checks the owner)."""

    @abstractmethod
    def find_node(self, s, user_id: str, name: str, type_: str) -> GraphNode | None: ...

    @abstractmethod
    def add_node(self, s, node: GraphNode) -> GraphNode:
        """Stage the node; its id is set on return."""

    @abstractmethod
    def save_node(self, s, node: GraphNode) -> None:
        """Stage changes to a node read through `s` (mentions, embedding)."""

    @abstractmethod
    def add_edge(self, s, edge: GraphEdge) -> GraphEdge:
        """Stage the edge; its id is set on return."""

    @abstractmethod
    def invalidate_edge(self, s, user_id: str, edge_id: int, *, expired_at: datetime,
                        valid_to: datetime | None, invalidated_by: int | None) -> GraphEdge | None:
        """Mark a valid edge of this user invalid (never delete it); None if there is none."""

    # -- caches -------------------------------------------------------------------------

    def generation(self, user_id: str) -> int:
        """Bumped by every write and by `invalidate_cache`: derived caches compare it."""
        with self._lock:
            return self._generation.get(user_id, 0)

    def invalidate_cache(self, user_id: str) -> None:
        # Called on every staged write and again after the commit: a reader that rebuilt a
        # cache between the two saw the pre-commit graph, and the second bump discards it.
        with self._lock:
            self._generation[user_id] = self._generation.get(user_id, 0) + 1
            self._nx.pop(user_id, None)

    def to_networkx(self, user_id: str, as_of: datetime | None = None) -> nx.MultiDiGraph:
        """The user's graph (frozen: don't mutate it). Edge keys are edge ids. With `as_of`,
        the graph as it stood then; without, the valid edges (cached until the next write)."""
        import networkx as nx  # only the graph view needs it: keep it off the start-up path

        gen = self.generation(user_id)
        if as_of is None:
            with self._lock:
                hit = self._nx.get(user_id)
            if hit and hit[0] == gen:
                return hit[1]
        g = nx.MultiDiGraph(user_id=user_id, as_of=as_of)
        for n in self.nodes(user_id):
            if as_of is None or n.created_at <= as_of:
                g.add_node(n.id, name=n.name, type=n.type, mentions=n.mentions, created_at=n.created_at)
        for e in self.edges(user_id, as_of=as_of):
            if e.source_id in g and e.target_id in g:
                g.add_edge(e.source_id, e.target_id, key=e.id, relation=e.relation, valid=e.valid,
                           valid_from=e.valid_from, valid_to=e.valid_to, recorded_at=e.recorded_at,
                           expired_at=e.expired_at, source_entry_id=e.source_entry_id)
        nx.freeze(g)
        if as_of is None:
            with self._lock:
                if self._generation.get(user_id, 0) == gen:  # no write landed while we read
                    self._nx[user_id] = (gen, g)
        return g

    def unread_entries(self, user_id: str) -> list[tuple[int, str, list, datetime]]:
        """The diarist's own entries no AI has read for the graph (id, text, tags, time): the graph drawn
        from the journal itself names what they mention (pipeline/mentions.py). None in a store without
        a journal."""
        return []

    def node_detail(self, user_id: str, node_id: int) -> dict | None:
        """A node, every edge touching it (invalid ones with their dates) and the entries behind them."""
        node = self.node(user_id, node_id)
        if node is None:
            return None
        edges = self.edges_of(user_id, node_id)
        names = {pk(n): n.name for n in self.nodes(user_id)}
        entries = {e.source_entry_id for e in edges} | {node.source_entry_id}
        return {
            "node": {"id": node.id, "name": node.name, "type": node.type, "mentions": node.mentions,
                     "created_at": iso(node.created_at), "source_entry_id": node.source_entry_id,
                     "is_user": is_user_node(node)},
            "edges": [{**edge_dict(e, names), "direction": "out" if e.source_id == node_id else "in"}
                      for e in edges],
            "source_entry_ids": sorted(i for i in entries if i is not None),
        }


class SQLiteGraphStore(GraphStore):
    def __init__(self, engine):
        super().__init__()
        self.engine = engine

    def unread_entries(self, user_id: str) -> list[tuple[int, str, list, datetime]]:
        # Read by an AI for the graph: named by a graph job that is done, whatever it found, unless it
        # read nothing (graph memory switched off while it waited); or by a memorize job done before
        # the graph had jobs of its own (its result carries the relations).
        with Session(self.engine) as s:
            read: set[int] = set()
            # Asked of SQLite's JSON functions: parsing every job's result here took 158 ms on 7,300 jobs.
            graph_read = and_(col(Job.kind) == "graph", func.json_extract(Job.result, "$.skipped").is_(None))
            read_with_memories = and_(col(Job.kind) == "memorize", func.json_type(Job.result, "$.relations").isnot(None))
            for payload in s.exec(select(Job.payload).where(col(Job.user_id) == user_id, col(Job.state) == "done",
                                                            or_(graph_read, read_with_memories))):
                read.update(i for i in (payload or {}).get("entry_ids", []) if isinstance(i, int))
            rows = s.exec(select(Entry.id, Entry.content, Entry.tags, Entry.created_at).where(
                col(Entry.user_id) == user_id, col(Entry.role) == "user", col(Entry.kind) == "entry",
                col(Entry.deleted_at).is_(None)).order_by(col(Entry.created_at))).all()
        return [(entry_id, content, list(tags or []), created) for entry_id, content, tags, created in rows
                if entry_id is not None and entry_id not in read]

    def nodes(self, user_id: str) -> list[GraphNode]:
        with Session(self.engine) as s:
            return list(s.exec(select(GraphNode).where(col(GraphNode.user_id) == user_id).order_by(col(GraphNode.id))))

    def node(self, user_id: str, node_id: int) -> GraphNode | None:
        with Session(self.engine) as s:
            n = s.get(GraphNode, node_id)
        return n if n is not None and n.user_id == user_id else None

    def edges(self, user_id: str, *, include_invalid: bool = False,
              as_of: datetime | None = None) -> list[GraphEdge]:
        q = select(GraphEdge).where(col(GraphEdge.user_id) == user_id)
        if as_of is not None:
            q = q.where(col(GraphEdge.recorded_at) <= as_of,
                        or_(col(GraphEdge.expired_at).is_(None), col(GraphEdge.expired_at) > as_of))
        elif not include_invalid:
            q = q.where(col(GraphEdge.valid).is_(True))
        with Session(self.engine) as s:
            return list(s.exec(q.order_by(col(GraphEdge.id))))

    def edges_of(self, user_id: str, node_id: int) -> list[GraphEdge]:
        with Session(self.engine) as s:
            return list(s.exec(
                select(GraphEdge).where(col(GraphEdge.user_id) == user_id,
                                        or_(col(GraphEdge.source_id) == node_id, col(GraphEdge.target_id) == node_id))
                .order_by(col(GraphEdge.recorded_at), col(GraphEdge.id))))

    def neighbours(self, user_id: str, node_ids: Iterable[int]) -> list[GraphEdge]:
        ids = list(node_ids)
        if not ids:
            return []
        with Session(self.engine) as s:
            return list(s.exec(
                select(GraphEdge).where(col(GraphEdge.user_id) == user_id, col(GraphEdge.valid).is_(True),
                                        or_(col(GraphEdge.source_id).in_(ids), col(GraphEdge.target_id).in_(ids)))
                .order_by(col(GraphEdge.id))))

    def edges_from_entry(self, s: Session, user_id: str, entry_id: int) -> list[GraphEdge]:
        return list(s.exec(select(GraphEdge).where(col(GraphEdge.user_id) == user_id,
                                                   col(GraphEdge.source_entry_id) == entry_id)))

    def load_node(self, s: Session, node_id: int) -> GraphNode | None:
        return s.get(GraphNode, node_id)

    def find_node(self, s: Session, user_id: str, name: str, type_: str) -> GraphNode | None:
        return s.exec(select(GraphNode).where(col(GraphNode.user_id) == user_id, col(GraphNode.name) == name,
                                              col(GraphNode.type) == type_).order_by(col(GraphNode.id))).first()

    def add_node(self, s: Session, node: GraphNode) -> GraphNode:
        s.add(node)
        s.flush()  # edges need the id
        self.invalidate_cache(node.user_id)
        return node

    def save_node(self, s: Session, node: GraphNode) -> None:
        s.add(node)
        self.invalidate_cache(node.user_id)

    def add_edge(self, s: Session, edge: GraphEdge) -> GraphEdge:
        s.add(edge)
        s.flush()  # an invalidated edge points at it
        self.invalidate_cache(edge.user_id)
        return edge

    def invalidate_edge(self, s: Session, user_id: str, edge_id: int, *, expired_at: datetime,
                        valid_to: datetime | None, invalidated_by: int | None) -> GraphEdge | None:
        e = s.get(GraphEdge, edge_id)
        if e is None or e.user_id != user_id or not e.valid:
            return None
        e.valid = False
        # A backdated entry must not expire an edge before the journal knew it.
        e.expired_at = max(expired_at, e.recorded_at)
        if valid_to is not None and e.valid_from is not None:
            valid_to = max(valid_to, e.valid_from)
        e.valid_to = valid_to
        e.invalidated_by = invalidated_by
        s.add(e)
        self.invalidate_cache(user_id)
        return e


@dataclass
class GraphIndex:
    """A user's graph as search and node resolution read it, with unit vectors of node names
    (every node but the user's) and a text -> vector cache for triplets. Derived, never stored."""

    generation: int
    model: str  # the embedding model the vectors come from ("" when none could load)
    embedder: Any  # core.embedder.Embedder (duck-typed: tests pass fakes)
    nodes: dict[int, GraphNode]
    edges: list[GraphEdge]  # invalid ones included
    user_node: int | None = None
    by_key: dict[str, list[int]] = field(default_factory=dict)  # normalised name -> node ids
    vec_ids: list[int] = field(default_factory=list)  # rows of `vecs`
    vecs: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    refreshed: dict[int, np.ndarray] = field(default_factory=dict)  # stored vectors of another model, redone
    texts: dict[str, np.ndarray] = field(default_factory=dict)  # kept across rebuilds with the same model
    tokens: dict[str, frozenset] = field(default_factory=dict)  # node name -> lexical tokens

    @classmethod
    def build(cls, store: GraphStore, user_id: str, embedder, model: str,
              previous: GraphIndex | None = None) -> GraphIndex:
        gen = store.generation(user_id)  # read first: a write during the build makes it stale, not wrong
        nodes = {pk(n): n for n in store.nodes(user_id)}
        keep = previous is not None and previous.model == model
        idx = cls(gen, model, embedder, nodes, store.edges(user_id, include_invalid=True),
                  texts=previous.texts if keep and previous else {}, tokens=previous.tokens if keep and previous else {})
        for nid, n in nodes.items():
            idx.by_key.setdefault(normalize_name(n.name), []).append(nid)
            if is_user_node(n) and idx.user_node is None:
                idx.user_node = nid
        others = [n for n in nodes.values() if n.id != idx.user_node]
        stale = [n for n in others if n.embed_model != model or not n.embedding]
        fresh = idx.embed([n.name for n in stale]) if stale and model else None
        if fresh is not None:
            idx.refreshed = {pk(n): v for n, v in zip(stale, fresh)}
        rows = [(pk(n), idx.refreshed.get(pk(n), vector_of(n) if n.embed_model == model else None)) for n in others]
        rows = [(nid, v) for nid, v in rows if v is not None]
        if rows:
            idx.vec_ids = [nid for nid, _ in rows]
            idx.vecs = unit(np.stack([v for _, v in rows]))
        return idx

    def name(self, node_id: int) -> str:
        n = self.nodes.get(node_id)
        return n.name if n else "?"

    def triplet(self, e: GraphEdge) -> str:
        return f"{self.name(e.source_id)} {e.relation} {self.name(e.target_id)}"

    def embed(self, texts: list[str], strict: bool = False) -> np.ndarray | None:
        """Unit vectors for texts, cached. None when the embedder fails, unless `strict`."""
        missing = list(dict.fromkeys(t for t in texts if t not in self.texts))
        if missing:
            try:
                vecs = unit(self.embedder.embed_documents(missing))
            except Exception as exc:
                if strict:
                    raise
                log.warning("graph embeddings unavailable: %s", exc)
                return None
            self.texts.update(zip(missing, vecs))
        if not texts:
            return np.zeros((0, 0), np.float32)
        return np.stack([self.texts[t] for t in texts])
