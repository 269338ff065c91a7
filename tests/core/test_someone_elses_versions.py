"""Someone else's move is not a version of the diarist's state: "요즘 어디 살아?" is not answered by the
parents' new city, however new. Korean says so in the verb: an honorific ("이사하셨다", "사신다") is an
elder's doing. This holds for the kinds of change search/states.py names as for those it does not."""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.search import states, versions

ROWS = [
    ("2024-03-02", "부산 해운대에 산다"),
    ("2024-08-11", "회사 근처 헬스장에 등록했다"),
    ("2025-05-17", "서울 마포구로 이사했다"),
    ("2025-09-20", "주말에 한강에서 자전거를 탔다"),
    ("2026-02-08", "판교에 있는 회사에 다닌다"),
    ("2026-08-30", "할머니는 요즘 제주에 사신다"),
    ("2026-10-03", "부모님은 이번에 세종으로 이사하셨다"),
]
NOW = datetime(2026, 11, 1, 12)


@pytest.fixture
def journal(mem):
    for day, text in ROWS:
        mem.add(text, infer=False, timestamp=datetime.fromisoformat(day).replace(hour=21))
    return mem


@pytest.mark.parametrize("text", ["할머니는 요즘 제주에 사신다", "부모님은 이번에 세종으로 이사하셨다"])
def test_an_elders_doing_is_someone_elses(text):
    assert not versions.own(text)


@pytest.mark.parametrize("text", ["서울 마포구로 이사했다", "회사를 그만두기로 했다", "동기들이 나를 곰돌이라고 부른다"])
def test_the_diarists_own_doings_are_theirs(text):
    assert versions.own(text)


def test_the_list_knows_this_kind_of_change():
    # The premise: states.py's list of kinds names the parents' move as a move, so the list path is tested.
    wanted = states.asked("요즘 어디 살아?", tokenize("요즘 어디 살아?"))
    assert states.aspect_of(ROWS[-1][1], tokenize(ROWS[-1][1]), wanted)


def test_where_the_diarist_lives_now_is_not_where_the_parents_moved(journal):
    got = [h["memory"] for h in journal.search("요즘 어디 살아?", limit=5, now=NOW)["results"]]
    assert got[0] == "서울 마포구로 이사했다", got
