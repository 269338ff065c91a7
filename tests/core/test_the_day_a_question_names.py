"""A question about one day it names ("What did I share on 16 June?") gets that day's memories first,
even those that share no word with it; a weekday alone ("on Thursday nights") names a habit as often
as a date, and is not read as one day."""

from datetime import date, datetime

import pytest

from memoir_desktop.core.search.query import Query
from tests.core.dated_journal import top, write

NOW = datetime(2026, 11, 30, 21, 0)

FRIENDS = ("Aisha", "Tom", "Mina", "Callum", "Priya", "Jonas", "Lena", "Omar")
NEWS = ("her promotion", "the new flat", "his marathon time", "the wedding date", "the baby's name")
# Forty lines of other days about sharing exciting news: each is closer to the question, by its
# words and by meaning, than what was written on the day asked about.
OTHER_DAYS = [(f"2026-{1 + i % 10:02d}-{2 + i % 12:02d}", f"{FRIENDS[i % 8]} shared exciting news about {NEWS[i % 5]}.")
              for i in range(40)]
THE_DAY = [("2026-06-16", "Joined the climbing gym on Dock Street after work."),
           ("2026-06-16", "Bought a second-hand bike for the commute."),
           ("2026-06-16", "Watered the tomatoes on the balcony.")]

KO_OTHER_DAYS = [(f"2026-{1 + i % 10:02d}-{2 + i % 12:02d}", f"{name}가 기쁜 소식을 전해줬다: {what}.")
                 for i, (name, what) in enumerate(
                     [(n, w) for n in ("민지", "지수", "수아", "하나", "유나") for w in
                      ("승진했다고", "이사 간다고", "결혼 날짜 잡았다고", "아기 이름 정했다고",
                       "마라톤 완주했다고", "합격했다고", "차 샀다고", "강아지 입양했다고")])]
KO_THE_DAY = [("2026-06-16", "퇴근하고 동네 클라이밍장에 등록했다."),
              ("2026-06-16", "중고 자전거를 하나 샀다."),
              ("2026-06-16", "베란다 방울토마토에 물을 줬다.")]


def test_the_days_lines_come_first_though_other_days_share_the_words(mem):
    write(mem, OTHER_DAYS + THE_DAY)
    got = top(mem, "What exciting news did I share on 16 June, 2026?", NOW, limit=3)
    assert set(got) == {text for _, text in THE_DAY}


def test_the_same_for_a_korean_question(mem):
    write(mem, KO_OTHER_DAYS + KO_THE_DAY)
    got = top(mem, "6월 16일에 무슨 기쁜 소식 있었지?", NOW, limit=3)
    assert set(got) == {text for _, text in KO_THE_DAY}


@pytest.mark.parametrize("question", ["2026-06-16에 무슨 기쁜 소식 있었지?", "2026.6.16 기쁜 소식"])
def test_a_day_typed_in_digits_is_that_day(mem, question):
    write(mem, KO_OTHER_DAYS + KO_THE_DAY)
    assert set(top(mem, question, NOW, limit=3)) == {text for _, text in KO_THE_DAY}


def test_a_question_without_a_named_day_keeps_the_closest_first(mem):
    write(mem, OTHER_DAYS + THE_DAY)
    got = top(mem, "Who shared exciting news about the wedding date?", NOW, limit=3)
    assert all("wedding date" in text for text in got)


def test_which_questions_name_one_day():
    assert Query.of("What exciting news did Maria share on 16 June, 2023?", NOW, None).one_day
    assert Query.of("남친이 2월 14일에 손수 만든 선물이 뭐였지?", NOW, None).one_day
    # a weekday alone reads as a habit as often as a date; a week or a month is no one day
    assert not Query.of("How did I use to make the Friday pizza dough?", NOW, None).one_day
    assert not Query.of("Do I still curl on Thursday nights?", NOW, None).one_day
    assert not Query.of("What did I do the week before 3 June, 2026?", NOW, None).one_day
    assert not Query.of("What happened in June 2026?", NOW, None).one_day
    for typed in ("What did I do on 2026-03-14?", "2026.3.14에 뭐 했지?", "2026/03/14"):
        assert Query.of(typed, NOW, None).span == (date(2026, 3, 14), date(2026, 3, 14)), typed
    # day-first or month-first depends on the writer; a version number or an impossible day is no date
    for not_a_day in ("3/14에 뭐 했지?", "14/3", "app v2026.3.14.1 notes", "2026-02-30"):
        assert Query.of(not_a_day, NOW, None).span is None, not_a_day


@pytest.mark.parametrize("question", ["2026-03-14", "3월 14일에 뭐 했지?", "What did I write on 14 March 2026?"])
def test_the_search_field_lists_the_entries_of_the_day_first(mem, question):
    for day, text in [("2026-03-13", "짐 쌌다. 내일 아침 비행기로 제주 간다"), ("2026-03-14", "올레길 7코스를 걸었다"),
                      ("2026-03-14", "저녁엔 흑돼지 먹고 일찍 잠"), ("2026-03-20", "회사 워크숍 발표 준비")]:
        mem.journal.write(text, timestamp=datetime.fromisoformat(day).replace(hour=21))
    entries = mem.search_field.find(question, limit=10, now=NOW)["entries"]
    assert [e["content"] for e in entries[:2]] == ["올레길 7코스를 걸었다", "저녁엔 흑돼지 먹고 일찍 잠"]
