"""A place a question sets its thing in is not the thing it asks about: "요즘 회사에서 치는 키보드
뭐였지?" asks about a keyboard, not a job, though 회사 is one of the words of work (states.py). Read
from the question's structure: a noun marked as the place (에서, 에) names no kind of change there.
Without it, a newer memory of work ("팀장님이 다른 회사로 이직함") took the first place from the
keyboard the diarist changed to."""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.search import states
from tests.core import dated_journal

KO = [
    ("2024-06-10", "회사에서 준 멤브레인 키보드 쓰는데 손목이 시큰거림"),
    ("2024-09-02", "망원동 국밥집 단골이 됐다"),
    ("2025-01-18", "기계식 키보드 질렀다! 적축이라 사무실에서도 덜 시끄러움"),
    ("2025-03-02", "판교 게임회사로 이직했다"),
    ("2025-06-30", "여름휴가로 속초에 다녀왔다"),
    ("2026-02-27", "회사 옮긴 지 1년, 이제 출근길이 익숙하다"),
    ("2026-04-02", "무접점 키보드로 갈아탐. 적축은 동생 줌"),
    ("2026-08-08", "추석에 부모님 댁에서 송편을 빚었다"),
]
NOW = datetime(2026, 11, 20, 12)


def test_the_thing_asked_in_a_place_comes_first(mem):
    dated_journal.write(mem, KO)
    got = dated_journal.top(mem, "요즘 회사에서 치는 키보드 뭐였지?", NOW)
    assert got[0] == "무접점 키보드로 갈아탐. 적축은 동생 줌", got


@pytest.mark.parametrize("question,aspect,asked", [
    ("요즘 회사에서 치는 키보드 뭐였지?", "work", False),
    ("요즘 집에서 뭐 해?", "home", False),
    ("지금 다니는 회사가 어디야?", "work", True),  # the company itself is asked
    ("회사에서 맡은 일이 뭐더라?", "work", True),  # ... or the work done there
    ("요즘 어디 살아?", "home", True),
])
def test_a_place_names_no_kind_of_change(question, aspect, asked):
    names = [a.name for a in states.asked(question, tokenize(question))]
    assert (aspect in names) is asked, names
