"""The graph as the canvas shows it: a snapshot read from the store, and the filters over it.

Qt-free. `load_snapshot` runs on a worker (it reads SQLite); `filter_view` runs on the UI thread:
it is plain Python over an in-memory snapshot, a few ms for thousands of edges, so moving the
date slider or typing in the filter never waits for the database.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, time

from memoir_desktop.core.pipeline.mentions import MENTIONED, TOGETHER, MentionGraph
from memoir_desktop.core.storage.graph_store import (
    USER_NODE_NAME,
    USER_NODE_TYPE,
    GraphStore,
    held_at,
    iso,
    normalize_name,
)

# Known types first, in the order of the extraction prompt; others follow alphabetically. Tags come
# from the journal itself (mentions.py), never from an AI.
TYPE_ORDER = ("person", "place", "organization", "food", "activity", "preference", "pet", "event", "thing", "tag")
INVALID_EDGE_WEIGHT = 0.3  # a contradicted fact still tugs its ends together, but less
MENTION_EDGE_WEIGHT = 0.5  # named together: closer than strangers, looser than a stated relation
FACT, MENTION = "fact", "mention"  # an edge an AI stated; two names one entry mentions
__all__ = ["FACT", "MENTION", "MENTIONED", "TOGETHER", "EdgeInfo", "Filters", "GraphSnapshot", "GraphView", "NodeInfo",
           "end_of_day", "filter_view", "load_snapshot", "with_mentions"]


@dataclass(frozen=True, slots=True)
class NodeInfo:
    id: int
    name: str
    type: str
    mentions: int = 1
    created_at: datetime | None = None
    entries: tuple[int, ...] = ()  # the entries no AI has read that name it (mentions.py)

    @property
    def is_user(self) -> bool:
        return self.name == USER_NODE_NAME and self.type == USER_NODE_TYPE


@dataclass(frozen=True, slots=True)
class EdgeInfo:
    id: int
    source: int
    target: int
    relation: str
    valid: bool = True
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_at: datetime | None = None
    expired_at: datetime | None = None
    source_entry_id: int | None = None
    kind: str = FACT
    entries: tuple[int, ...] = ()  # a mention's entries

    def known_at(self, when: datetime) -> bool:
        return self.recorded_at is None or self.recorded_at <= when

    def valid_at(self, when: datetime | None) -> bool:
        """Whether the journal held this edge as true then (system time: `held_at` in the core)."""
        if when is None:
            return self.valid
        return held_at(self.recorded_at, self.expired_at, when)


@dataclass
class GraphSnapshot:
    nodes: dict[int, NodeInfo] = field(default_factory=dict)
    edges: list[EdgeInfo] = field(default_factory=list)
    written: dict[int, datetime] = field(default_factory=dict)  # entries that name something: when written

    @property
    def empty(self) -> bool:
        return not self.nodes

    @property
    def has_mentions(self) -> bool:
        """Some of what is drawn was read from the journal itself, not by an AI."""
        return any(e.kind == MENTION for e in self.edges)

    def types(self) -> list[str]:
        present = {n.type for n in self.nodes.values()}
        known = [t for t in TYPE_ORDER if t in present]
        return known + sorted(present - set(TYPE_ORDER))

    def type_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for n in self.nodes.values():
            counts[n.type] = counts.get(n.type, 0) + 1
        return counts

    def span(self) -> tuple[date, date] | None:
        """First and last day on which the graph changed (a node or edge recorded, an edge expired)."""
        times = [n.created_at for n in self.nodes.values() if n.created_at]
        for e in self.edges:
            times += [t for t in (e.recorded_at, e.expired_at) if t]
        if not times:
            return None
        return min(times).date(), max(times).date()

    def layout_input(self) -> tuple[list[str], list[tuple[str, str]], list[float]]:
        """Every node and edge, invalid ones included: one layout for all filters keeps each node in
        its place while the user filters or scrubs through time, instead of reshuffling the drawing."""
        ids = [str(i) for i in self.nodes]
        edges = [(str(e.source), str(e.target)) for e in self.edges]
        weights = [MENTION_EDGE_WEIGHT if e.kind == MENTION else 1.0 if e.valid else INVALID_EDGE_WEIGHT
                   for e in self.edges]
        return ids, edges, weights

    def mention_detail(self, node_id: int, detail: dict | None = None) -> dict | None:
        """What the node panel shows of a node: the AI's `detail` (store.node_detail) when it has one, with
        the names the journal mentions it with and the entries that name it."""
        node = self.nodes.get(node_id)
        if node is None:
            return detail
        mentions = [e for e in self.edges if e.kind == MENTION and node_id in (e.source, e.target)]
        if detail is None:
            if not node.entries:
                return None
            detail = {"node": {"id": node.id, "name": node.name, "type": node.type, "mentions": node.mentions,
                               "created_at": iso(node.created_at), "source_entry_id": None, "is_user": node.is_user},
                      "edges": [], "source_entry_ids": []}
        edges = [{"id": e.id, "kind": MENTION, "relation": e.relation, "valid": True,
                  "source": self.nodes[e.source].name, "source_id": e.source,
                  "target": self.nodes[e.target].name, "target_id": e.target,
                  "recorded_at": iso(e.recorded_at), "entries": len(e.entries),
                  "direction": "out" if e.source == node_id else "in"} for e in mentions]
        edges.sort(key=lambda e: -e["entries"])
        sources = sorted({*detail.get("source_entry_ids", []), *node.entries})
        dates = {i: self.written[i] for i in node.entries if i in self.written}
        return {**detail, "edges": [*detail["edges"], *edges], "source_entry_ids": sources, "entry_dates": dates}


def load_snapshot(store: GraphStore, user_id: str) -> GraphSnapshot:
    """Read the user's whole graph (all edges, with their dates). Any thread; not the UI's."""
    nodes = {n.id: NodeInfo(n.id, n.name, n.type, n.mentions, n.created_at) for n in store.nodes(user_id)
             if n.id is not None}  # rows read back always have their id
    edges = [EdgeInfo(e.id, e.source_id, e.target_id, e.relation, e.valid, e.valid_from, e.valid_to,
                      e.recorded_at, e.expired_at, e.source_entry_id)
             for e in store.edges(user_id, include_invalid=True)
             if e.id is not None and e.source_id in nodes and e.target_id in nodes]
    return GraphSnapshot(nodes, edges)


def with_mentions(snap: GraphSnapshot, found: MentionGraph) -> GraphSnapshot:
    """The AI's graph and what the journal names besides (pipeline/mentions.py): a name the AI's graph
    holds is that node; another is a node of its own (negative ids, which no stored node has). A pair
    an AI relation already links gets no mention link."""
    if not found.nodes:
        return snap
    nodes = dict(snap.nodes)
    by_name = {normalize_name(n.name): nid for nid, n in nodes.items()}
    user = next((nid for nid, n in nodes.items() if n.is_user), None)
    ids: dict[str, int] = {}
    for k, m in enumerate(found.nodes, 1):
        nid = user if m.name == USER_NODE_NAME and user is not None else by_name.get(normalize_name(m.name))
        if nid is None:
            nid = -k
            nodes[nid] = NodeInfo(nid, m.name, m.type, m.count, m.first_seen, m.entry_ids)
        else:
            old = nodes[nid]
            nodes[nid] = NodeInfo(old.id, old.name, old.type, old.mentions, old.created_at, m.entry_ids)
        ids[m.name] = nid
    linked = {frozenset((e.source, e.target)) for e in snap.edges}
    edges = list(snap.edges)
    for k, link in enumerate(found.links, 1):
        a, b = ids.get(link.source), ids.get(link.target)
        if a is None or b is None or a == b or frozenset((a, b)) in linked:
            continue
        edges.append(EdgeInfo(-k, a, b, link.relation, True, recorded_at=link.first_seen, kind=MENTION,
                              entries=link.entry_ids))
    return GraphSnapshot(nodes, edges, dict(found.written))


def end_of_day(day: date) -> datetime:
    return datetime.combine(day, time.max)


@dataclass
class Filters:
    text: str = ""
    hidden_types: frozenset[str] = frozenset()
    show_invalid: bool = True
    as_of: datetime | None = None  # None: the graph as it is now
    focus: int | None = None  # centre of the local graph
    depth: int = 0  # 0: the whole graph; 1-3: hops around `focus`


@dataclass
class GraphView:
    nodes: set[int]
    edges: dict[int, bool]  # edge id -> valid at the time shown
    matched: set[int] = field(default_factory=set)  # nodes whose name matched the text filter


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().strip()


def best_match(snap: GraphSnapshot, view: GraphView, text: str) -> int | None:
    """The node a typed name means among those the filter matched: the name itself, else the one that
    starts with it, else the shortest that has it (Enter in the filter opens it: the keyboard's way to
    a node)."""
    needle = _fold(text)
    if not needle or not view.matched:
        return None
    def rank(nid: int) -> tuple:
        name = _fold(snap.nodes[nid].name)
        return name != needle, not name.startswith(needle), len(name), name
    return min(view.matched, key=rank)


def filter_view(snap: GraphSnapshot, f: Filters) -> GraphView:
    """The nodes and edges to draw: as of a date, without hidden types, matching the text, near the focus."""
    nodes = {nid for nid, n in snap.nodes.items()
             if n.type not in f.hidden_types and (f.as_of is None or n.created_at is None or n.created_at <= f.as_of)}
    edges: dict[int, EdgeInfo] = {}
    valid: dict[int, bool] = {}
    for e in snap.edges:
        if e.source not in nodes or e.target not in nodes:
            continue
        if f.as_of is not None and not e.known_at(f.as_of):
            continue
        ok = e.valid_at(f.as_of)
        if ok or f.show_invalid:
            edges[e.id], valid[e.id] = e, ok
    matched: set[int] = set()
    needle = _fold(f.text)
    if needle:
        matched = {nid for nid in nodes if needle in _fold(snap.nodes[nid].name)}
        # The matches and their neighbours: a filter that left lone dots would hide what they mean.
        keep = set(matched)
        for e in edges.values():
            if e.source in matched or e.target in matched:
                keep.update((e.source, e.target))
        nodes = keep
    if f.depth > 0 and f.focus in nodes:
        inside = [e for e in edges.values() if e.source in nodes and e.target in nodes]
        nodes = _ego(nodes, inside, f.focus, f.depth)
    shown = {eid: valid[eid] for eid, e in edges.items() if e.source in nodes and e.target in nodes}
    return GraphView(nodes, shown, matched & nodes)


def _ego(nodes: set[int], edges, centre: int, depth: int) -> set[int]:
    import networkx as nx  # only the local graph needs it

    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from((e.source, e.target) for e in edges)
    return set(nx.ego_graph(g, centre, radius=depth))
