"""Query expansion from the synonym table: a question in other words finds the entry, and the
word the user typed still counts for more than its synonym."""

from __future__ import annotations

import pytest

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.lexical.synonyms import expand
from memoir_desktop.core.search_models.embedder import HASHED


@pytest.fixture(scope="module", autouse=True)
def _korean_analyser_loaded():
    tokenize("워밍업")


def _expand(text: str) -> list[str]:
    return expand(text, tokenize(text))


def test_everyday_synonyms_expand_both_ways():
    assert {"회사", "일터"} <= set(_expand("직장 이직"))
    assert "직장" in _expand("회사를 옮겼다")
    assert "강아지" in _expand("반려견 산책")
    assert "남자" in _expand("남친이랑 싸웠다") and "애인" in _expand("남친이랑 싸웠다")


def test_a_phrase_is_named_in_any_of_its_forms():
    """"살 빼다" is never written as such: 뺐어, 빼는 중, 빼야지 name it by their morphemes."""
    assert "다이어트" in _expand("살을 좀 뺐어")
    assert "금연" in _expand("담배 끊었어")
    assert "이직" in _expand("회사를 옮겼어")


def test_slang_kiwi_takes_apart_is_matched_as_written():
    assert "고양이" in _expand("냥이 밥 줬다")
    assert "부모" in _expand("엄빠랑 통화")


def test_a_general_word_covers_specific_ones_but_not_back():
    assert "치과" in _expand("병원 다녀온 날")
    assert "병원" not in _expand("치과 예약")  # the dentist does not bring every hospital visit


def test_ambiguous_syllables_neither_trigger_nor_expand():
    assert "폭설" not in _expand("눈이 아파")  # 눈: eye, not snow
    assert _expand("이 뽑은 거") == []  # without 이 the phrase would be any 뽑다
    assert "사랑니" not in _expand("제비뽑기 했다")


def test_a_query_never_gets_its_own_words_back():
    text = "회사 직장 일터"
    assert not set(_expand(text)) & set(tokenize(text))


def test_search_finds_a_memory_written_with_the_synonym(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path, embed_model=HASHED) as m:
        m.add(["회사를 판교로 옮겼다", "주말에 영화를 봤다", "저녁에 김치찌개를 먹었다"], infer=False)
        top = m.search("직장 어디로 갔지", limit=3)["results"]
        assert top and top[0]["memory"] == "회사를 판교로 옮겼다"
        assert set(top[0]["explain"]["lexical"]["matched"]) >= {"회사"}


def test_the_word_typed_counts_for_more_than_its_synonym(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path, embed_model=HASHED) as m:
        m.add(["직장 동료와 점심을 먹었다", "회사 동료와 점심을 먹었다"], infer=False)
        top = m.search("직장 동료", limit=2)["results"]
        assert [r["memory"] for r in top] == ["직장 동료와 점심을 먹었다", "회사 동료와 점심을 먹었다"]


def test_entry_search_uses_synonyms_and_marks_them(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path, embed_model=HASHED) as m:
        m.journal.write("오늘 고양이 예방접종 하러 갔다")
        m.journal.write("오늘은 비가 왔다")
        found = m.search_field.find("냥이 주사")["entries"]
        assert found and "고양이" in found[0]["content"]
        marked = [found[0]["snippet"][a:b] for a, b in found[0]["highlights"]]
        assert "고양이" in marked


def test_a_query_of_slang_alone_still_searches(tmp_path):
    """"냥이" leaves no usable morpheme of its own; its expansion is what the query has to match on."""
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path, embed_model=HASHED) as m:
        m.add(["고양이 밥을 줬다", "주말에 영화를 봤다"], infer=False)
        m.journal.write("오늘 고양이 예방접종 하러 갔다")
        assert [r["memory"] for r in m.search("냥이", limit=3)["results"]][:1] == ["고양이 밥을 줬다"]
        assert [e["content"] for e in m.search_field.find("냥이")["entries"]] == ["오늘 고양이 예방접종 하러 갔다"]


def test_an_english_query_is_not_expanded_and_loads_no_korean_analyser():
    """The first chat turn of a process must not wait seconds for Kiwi when nothing in it is Korean."""
    import subprocess
    import sys

    code = ("from memoir_desktop.core.lexical import synonyms, tokens\n"
            "assert synonyms.expand('chat turn 1', ['chat', 'turn']) == []\n"
            "assert tokens._kiwi is None, 'kiwi loaded'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
