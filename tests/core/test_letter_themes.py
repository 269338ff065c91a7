"""A letter's themes are things a diarist would recognise: topics, not filler, time or verb-ish words."""

from __future__ import annotations

from datetime import datetime

from memoir_desktop.core.reflection.letters import themes
from tests.core.test_reflection import offline  # noqa: F401  (fixture)

FILLER = {"month", "week", "day", "days", "today", "started", "learning", "really", "thing", "things", "time",
          "this", "with"}


def test_english_themes_are_content_words_not_filler():
    found = themes([
        "This month I started learning pottery. Really a fun thing, the clay is cold.",
        "Pottery class again this week; learning to center the clay takes time.",
        "Started the day with Mina at the pottery studio, clay everywhere today. Really happy.",
    ])
    assert not FILLER & set(found), found
    assert found[:2] == ["pottery", "clay"]


def test_korean_themes_are_nouns_not_time_words_or_doings():
    found = themes([
        "이번 달에는 도예를 배우기 시작했다",
        "오늘 도예 수업에서 그릇을 만들었다. 진짜 재밌었다",
        "이번 주에 지수랑 도예 공방에 갔다. 오늘 그릇을 구웠다",
        "요즘 생각이 많다, 하루 종일 그릇 생각",
    ])
    assert not {"이번", "오늘", "시작", "요즘", "생각", "하루", "종일", "배우", "진짜"} & set(found), found
    assert found[:2] == ["도예", "그릇"]


def test_a_digest_without_themes_worth_showing_has_no_themes_line(offline):  # noqa: F811
    for d, text in [(2, "This month I started learning. Really."), (4, "Started learning this week, really.")]:
        offline.journal.write(text, timestamp=datetime(2026, 3, d, 21, 0))
    [letter] = offline.reflection.make_letters(now=datetime(2026, 3, 9))
    assert "you wrote 2 entries on 2 days" in letter["content"]
    assert "What you kept coming back to" not in letter["content"], letter["content"]
