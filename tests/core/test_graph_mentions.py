"""The graph without an AI: the people, places and tags a journal names, read from the journal itself
(Kiwi's proper nouns, capitalised English names, #tags and the entries' tags), each linked to the diarist
("나") and to what the same entry names. Entries an AI has read are left to the AI's graph."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlmodel import Session

from memoir_desktop.core import Memoir
from memoir_desktop.core.storage.graph_store import USER_NODE_NAME
from memoir_desktop.core.storage.models import Job

KOREAN = [
    ("오늘 지수랑 부산에 갔다. 해운대에서 회를 먹었다. #여행", ["가족"], datetime(2026, 3, 1, 21, 0)),
    ("지수한테 전화했다. 다음 주에 민지랑 서울에서 만나기로 했다.", [], datetime(2026, 3, 2, 22, 0)),
    ("민지가 서울로 이사 간대. 성수동에 집을 구했다고 한다.", [], datetime(2026, 3, 3, 20, 0)),
    ("Met Grace at Café Luna after work. Grace loves the rain.", ["friends"], datetime(2026, 3, 4, 19, 0)),
    ("오늘은 비가 와서 집에서 책을 읽었다.", [], datetime(2026, 3, 5, 21, 0)),
]


@pytest.fixture
def journal(tmp_path):
    mem = Memoir.open(tmp_path / "home", encrypt=False, llm_base_url=None)
    for text, tags, when in KOREAN:
        mem.journal.commit(text, user_id="me", timestamp=when, tags=tags, memorize=False)
    yield mem
    mem.close()


def _nodes(found) -> dict[str, str]:
    return {n.name: n.type for n in found.nodes}


def _linked(found, a: str, b: str) -> int:
    return next((x.count for x in found.links if {x.source, x.target} == {a, b}), 0)


def test_a_korean_journal_without_an_ai_names_its_people_places_and_tags(journal):
    found = journal.graph.mentions("me")
    nodes = _nodes(found)
    assert nodes[USER_NODE_NAME] == "person"
    for name, type_ in [("지수", "person"), ("민지", "person"), ("부산", "place"), ("서울", "place"),
                        ("해운대", "place"), ("성수동", "place"), ("#여행", "tag"), ("#가족", "tag"),
                        ("Grace", "person"), ("Café Luna", "place"), ("#friends", "tag")]:
        assert nodes.get(name) == type_, (name, nodes.get(name))
    # Words that are not names stay out: a weekday, the rain, a book, the diarist's day.
    assert not {"오늘", "비", "책", "집", "Met", "After", "Grace loves"} & set(nodes)
    by_name = {n.name: n for n in found.nodes}
    assert by_name["지수"].count == 2 and by_name["서울"].count == 2 and by_name["Grace"].count == 1
    assert by_name["지수"].first_seen == datetime(2026, 3, 1, 21, 0) and len(by_name["지수"].entry_ids) == 2
    # The diarist at the centre, linked to all; what one entry names, linked together.
    assert all(_linked(found, USER_NODE_NAME, n) for n in nodes if n != USER_NODE_NAME)
    assert _linked(found, "지수", "부산") == 1 and _linked(found, "민지", "서울") == 2
    assert _linked(found, "Grace", "Café Luna") == 1 and not _linked(found, "Grace", "부산")


def test_entries_an_ai_has_read_are_left_to_its_graph(journal):
    first = journal.journal.entries()[0]
    with Session(journal.engine) as s:  # the AI read the first entry for the graph (its graph job is done)
        s.add(Job(kind="graph", user_id="me", state="done", payload={"entry_ids": [first["id"]]}))
        s.commit()
    nodes = _nodes(journal.graph.mentions("me"))
    assert "부산" not in nodes and "해운대" not in nodes and "#여행" not in nodes
    assert nodes["지수"] == "person"  # still named by an entry no AI read


@pytest.mark.parametrize("result, read", [({"results": []}, False), ({"results": [], "relations": []}, True)],
                         ids=["memories only: the graph's reading still to come", "graph read in the same job"])
def test_a_done_memorize_job_leaves_the_entry_to_the_ai_graph_only_when_it_read_the_graph(journal, result, read):
    first = journal.journal.entries()[0]
    with Session(journal.engine) as s:
        s.add(Job(kind="memorize", user_id="me", state="done", payload={"entry_ids": [first["id"]]}, result=result))
        s.commit()
    assert ("부산" not in _nodes(journal.graph.mentions("me"))) is read


def test_a_journal_with_no_names_has_no_mentions(tmp_path):
    with Memoir.open(tmp_path / "home", encrypt=False, llm_base_url=None) as mem:
        assert mem.graph.mentions("me").nodes == []
        mem.journal.write("오늘은 비가 왔다.")
        assert mem.graph.mentions("me").nodes == []


def test_english_names_are_told_from_words_that_open_a_sentence(tmp_path):
    with Memoir.open(tmp_path / "home", encrypt=False, llm_base_url=None) as mem:
        for day, text in enumerate(["Lunch with Sarah at Blue Bottle. Felt great.",
                                    "Called Jake. We walked around Central Park.",
                                    "Central Park was lovely. Mr. Park says hi. Q3 went fine.",
                                    "회사 동료 Grace랑 점심을 먹었다."], 1):
            mem.journal.commit(text, user_id="me", timestamp=datetime(2026, 4, day, 20, 0), memorize=False)
        nodes = _nodes(mem.graph.mentions("me"))
    assert {"Sarah": "person", "Blue Bottle": "place", "Jake": "person", "Central Park": "place",
            "Mr. Park": "person", "Grace": "person"}.items() <= nodes.items()
    assert not {"Lunch", "Felt", "Called", "Called Jake", "Park", "Q3", "We"} & set(nodes)
    assert [n for n in nodes if "Central" in n] == ["Central Park"]
