"""A Korean question that opens on someone else asks about their state: "언니네 요즘 어디 살지?" is
about the sister's home, and the diarist's own newer move is no answer to it, however new. Korean
leaves the diarist out of a question about themselves, so who is asked about is read from how the
question opens (versions.asked_of): a family word or a given name before its particle or its word
of time. Then only the lines naming that person are versions of their state (versions.mine)."""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.search.versions import asked_of, mine
from tests.core import dated_journal

NOW = datetime(2025, 11, 20, 12)

HOMES = [
    ("2024-03-02", "언니네는 대전 둔산동 아파트에 산다"),
    ("2024-06-15", "망원동 원룸으로 이사했다"),
    ("2024-09-01", "회사 근처 국밥집 단골이 됐다"),
    ("2025-02-08", "형부가 세종으로 발령 나서 언니네 식구가 세종으로 이사함"),
    ("2025-05-04", "여름휴가로 속초에 다녀왔다"),
    ("2025-08-30", "전세 만기라 합정동 투룸으로 이사 왔다"),
    ("2025-10-03", "추석에 부모님 댁에서 송편을 빚었다"),
]
SISTER_NOW = "형부가 세종으로 발령 나서 언니네 식구가 세종으로 이사함"
MINE_NOW = "전세 만기라 합정동 투룸으로 이사 왔다"

JOBS = [
    ("2024-01-15", "우람이 청주 오창 공장 인턴으로 들어감"),
    ("2024-04-20", "판교 게임회사에 입사했다"),
    ("2024-10-11", "주말에 북한산 다녀왔다"),
    ("2025-03-02", "우람이 인턴 끝나고 그 회사 정규직으로 붙었다"),
    ("2025-07-19", "게임회사 그만두고 성수동 스타트업으로 이직했다"),
    ("2025-09-27", "동네 도서관에서 책 세 권 빌렸다"),
]


@pytest.mark.parametrize(("rows", "question", "want"), [
    (HOMES, "언니네 요즘 어디 살지?", SISTER_NOW),
    (JOBS, "우람이 지금 회사 어디 다니지?", "우람이 인턴 끝나고 그 회사 정규직으로 붙었다"),
    (JOBS, "지금 회사 어디 다니지?", "게임회사 그만두고 성수동 스타트업으로 이직했다"),  # the diarist's own
], ids=["sister-home", "friend-job", "own-job"])
def test_the_newest_line_of_whom_the_question_asks_about_comes_first(mem, rows, question, want):
    dated_journal.write(mem, rows, user_id="ko")
    got = dated_journal.top(mem, question, NOW, user_id="ko")
    assert got[0] == want, got


def test_the_diarists_own_question_still_gets_their_own_move(mem):
    dated_journal.write(mem, HOMES, user_id="ko")
    got = dated_journal.top(mem, "요즘 어디 살아?", NOW, user_id="ko")
    assert got[0] == MINE_NOW, got


@pytest.mark.parametrize(("question", "who"), [
    ("언니네 요즘 어디 살지?", ("언니",)),
    ("엄마 지금 어디 사셔?", ("엄마",)),
    ("민호 이제 어디서 살아?", ("민호",)),
    ("우람이 지금 회사 어디 다니지?", ("우람", "우람이")),
    ("동생 태식이 이제 무슨 일 해?", ("동생", "태식")),
    ("요즘 어디 살아?", ()),  # the diarist, left out as Korean does
    ("나 요즘 어디 살지?", ()),
    ("우리 집 차 지금 뭐였지?", ()),
    ("스페인어 공부는 지금 어떻게 하고 있어?", ()),  # a proper noun before another noun names a thing
    ("Where does Mum live now?", ()),  # English says whose by its words (versions.about_the_diarist)
])
def test_whom_a_question_asks_about(question, who):
    assert asked_of(question) == who


def test_only_a_line_naming_them_is_a_version_of_their_state():
    assert mine(SISTER_NOW, "언니네 요즘 어디 살지?")
    assert not mine(MINE_NOW, "언니네 요즘 어디 살지?")
    assert mine(MINE_NOW, "요즘 어디 살아?")
