"""A question about the version before another ("러닝 시작하기 전에는…", "before nursing") gets it
first, chosen among the best-ranked memories (search/present.py) when no kind the list names
answered: the ranking alone put the newer version first, or another thing's."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.core import dated_journal
from tests.core.test_the_answer_now_among_versions import ROWS as KO_ROWS

EN_ROWS = [
    ("2023-12-02", "Every Sunday morning I hike the hill behind our street"),
    ("2024-01-13", "I read novels I borrow from the branch library every weekend"),
    ("2024-03-02", "Went to my nephew's school play"),
    ("2024-05-19", "The noodle place near the office closed down"),
    ("2024-06-01", "Maeve works as a barista in Galway"),
    ("2024-08-10", "Rain all week, laundry won't dry"),
    ("2024-11-23", "Bought a Kindle, so now every novel I read is an ebook"),
    ("2025-02-08", "Book club picked next month's title"),
    ("2025-03-15", "My knee hurts, so I ride the indoor bike instead of hiking"),
    ("2025-04-12", "Saw the cherry blossoms by the river"),
    ("2025-06-21", "Started listening to novels as audiobooks on my commute, much easier on my eyes"),
    ("2025-07-07", "Maeve quit the café and is training as a nurse"),
    ("2025-09-06", "Got a gift basket from work"),
    ("2025-12-24", "Christmas Eve cake with friends"),
    ("2026-03-14", "My sister Maeve started a pottery class"),
    ("2026-04-18", "Dropped the indoor bike, I run with a club along the river now"),
    ("2026-05-30", "Cherry tomatoes on the balcony finally ripened"),
    ("2026-06-11", "Maeve qualified and now works nights in the children's ward"),
    ("2026-08-15", "Cleaned the air conditioner filter"),
    ("2026-09-19", "My shoelace snapped so I bought new laces"),
    ("2026-10-03", "The pool changed its lap swim hours"),
    ("2026-10-20", "Maeve sent photos of her new cat"),
]
NOW = datetime(2026, 11, 20, 12)


@pytest.fixture
def journal(mem):
    dated_journal.write(mem, KO_ROWS, user_id="ko")
    return dated_journal.write(mem, EN_ROWS, user_id="en")


@pytest.mark.parametrize("question,user,before", [
    ("러닝 시작하기 전에는 무슨 운동 했었지?", "ko", "무릎이 아파서 등산 대신 실내 자전거를 탄다"),
    ("What did Maeve do before nursing?", "en", "Maeve works as a barista in Galway"),
    ("Where did I get novels before the Kindle?", "en", "I read novels I borrow from the branch library every weekend"),
])
def test_the_version_before_comes_first(journal, question, user, before):
    got = dated_journal.top(journal, question, NOW, user_id=user)
    assert got[0] == before, got


FREELANCE = [
    ("2024-02-05", "I work as a court transcriptionist for the state reporters' office"),
    ("2024-05-11", "Planted tomatoes along the back fence"),
    ("2024-09-14", "Drove up to see Mom for her birthday"),
    ("2025-03-08", "Left the state job; I now work from home as a freelance transcriptionist"),
    ("2025-06-21", "New glasses, finally"),
    ("2025-10-04", "Took on a second freelance client, a law firm downtown"),
    ("2026-01-17", "Snowed in for three days"),
]


def test_where_the_list_names_no_later_version_the_choice_answers(mem):
    # The kinds of change found three work lines and no word of the question in one of them alone
    # ("freelance" is a word of work), so they answered with the one before the newest: the
    # freelancing itself. The version before it is chosen by how versions look.
    dated_journal.write(mem, FREELANCE, user_id="free")
    got = dated_journal.top(mem, "Who did I work for before I went freelance?", NOW, user_id="free")
    assert got[0] == "I work as a court transcriptionist for the state reporters' office", got
