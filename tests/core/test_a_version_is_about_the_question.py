"""A line the kinds of change read as a version by a word or two is no version of what the question
asks when the words mean something else there: "집 앞 어린이집으로 옮겼다" (집 only says where: a child's
nursery changed) is no home of mother's, "Moved my dentist appointment" no home, "for a living" no
home either, and "Priya hired two nurses" is Priya's doing. Before, such a line, being the newest,
went first, and the real newest version was moved down to its place (search/states.py, versions.whose)."""

from datetime import datetime

import pytest

from tests.core.dated_journal import top, write

NOW = datetime(2026, 11, 20, 12)

HOME = [
    ("2024-02-10", "Signed a year's lease on a one-bedroom flat above the bakery on Cowley Road."),
    ("2024-04-02", "Started the new rota at the hospital pharmacy: four long days, three off."),
    ("2024-06-15", "Took the bus to Bath with Ellie for her birthday."),
    ("2024-09-21", "The flat's boiler broke again; the landlord sent a man with a hammer."),
    ("2025-01-11", "Finished reading a biography of Florence Nightingale."),
    ("2025-03-08", "Moved into a terraced house in Headington with a little garden for the dog."),
    ("2025-03-08", "Biscuit dug up the new garden within an hour."),
    ("2025-05-17", "Learned to make gnocchi from a video; they came out like pebbles."),
    ("2025-08-30", "Ellie and I went to a wedding in Cornwall; it poured."),
    ("2025-11-22", "Got the flu jab at work."),
    ("2026-02-07", "Painted the back bedroom a soft yellow."),
    ("2026-06-13", "Our book club moved from Wednesdays to Fridays."),
    ("2026-09-05", "Moved my dentist appointment to the Tuesday after next."),
    ("2026-10-24", "Bought a second-hand bike for the canal path."),
]

MOTHER = [
    ("2024-04-06", "엄마는 전주 효자동 아파트에 혼자 사신다. 주말마다 전화 드림."),
    ("2024-06-01", "서윤이 돌잔치 했다. 돌잡이로 마이크 잡음."),
    ("2024-09-14", "추석에 전주 내려가서 엄마랑 한옥마을 걸었다."),
    ("2025-02-22", "우리 세종 아름동 아파트로 이사했다. 서윤이 방이 처음 생김."),
    ("2025-05-10", "회사 체육대회에서 줄다리기 이겼다."),
    ("2025-09-20", "엄마가 전주 집 정리하시고 우리 단지 앞 빌라로 이사 오셨다."),
    ("2026-01-03", "새해 첫날 가족이랑 금강 산책."),
    ("2026-03-07", "서윤이 감기 때문에 일주일 내내 밤잠 설쳤다."),
    ("2026-08-29", "어린이집 차량이 없어져서 서윤이를 집 앞 어린이집으로 옮겼다."),
    ("2026-10-17", "동네 도서관 독서 모임에 처음 나가봄."),
]


@pytest.mark.parametrize(("rows", "question", "answer"), [
    (MOTHER, "엄마 지금 어디 사셔?", "엄마가 전주 집 정리하시고 우리 단지 앞 빌라로 이사 오셨다."),
    (HOME, "Where do I live now?", "Moved into a terraced house in Headington with a little garden for the dog."),
])
def test_a_line_about_something_else_is_no_newer_version(mem, rows, question, answer):
    got = top(write(mem, rows), question, NOW, limit=3)
    assert got[0] == answer, got


def test_moving_a_thing_is_no_move_of_home(mem):
    """"moved" with a thing after it moves the thing, not the diarist: read as a home by the word alone,
    it came first even when it was close to the question in meaning."""
    rows = HOME + [("2026-11-07", "Moved my gym membership from the leisure centre to the climbing wall in town.")]
    got = top(write(mem, rows), "Where do I live now?", NOW, limit=3)
    assert got[0] == "Moved into a terraced house in Headington with a little garden for the dog.", got


def test_a_move_to_a_place_is_still_a_home(mem):
    """"moved" stays a home where it moves the diarist somewhere (to, into, out, back)."""
    rows = HOME + [("2026-10-31", "We moved to a cottage in Wolvercote at last, two streets from the river.")]
    got = top(write(mem, rows), "Where do I live now?", NOW, limit=3)
    assert got[0] == "We moved to a cottage in Wolvercote at last, two streets from the river.", got


JOBS = [
    ("2024-01-20", "Started as a junior copywriter at a travel agency in Leeds."),
    ("2024-05-04", "Rented a studio flat in Chapel Allerton, tiny but mine."),
    ("2024-08-17", "Saw a live jazz trio at the Brudenell with Priya."),
    ("2025-02-08", "Left the agency and joined a charity as their communications officer."),
    ("2025-06-21", "Did a great job on the garden fence, if I say so myself."),
    ("2025-10-11", "Moved to a two-bed terrace in Headingley with Priya."),
    ("2026-03-14", "Quit the charity to go freelance, writing for food magazines."),
    ("2026-08-01", "We moved into a bigger house in Roundhay with a garden for Priya's veg."),
    ("2026-10-03", "Took the train to York for the Christmas market planning meeting."),
]


def test_for_a_living_asks_about_a_job_not_a_home(mem):
    """"What do I do for a living?" asks about a job: read as "living", a home, it got the newest move."""
    got = top(write(mem, JOBS), "What do I do for a living now?", NOW, limit=3)
    assert got[0] == "Quit the charity to go freelance, writing for food magazines.", got


@pytest.mark.parametrize(("newest", "question", "answer"), [
    ("Went to see a live folk band at the Brudenell with Priya.", "Where do I live now?",
     "We moved into a bigger house in Roundhay with a garden for Priya's veg."),
    ("Did a great job on the shed roof, no leaks this time.", "What's my job these days?",
     "Quit the charity to go freelance, writing for food magazines."),
])
def test_a_word_in_a_phrase_that_means_something_else_states_no_version(mem, newest, question, answer):
    got = top(write(mem, [*JOBS, ("2026-11-07", newest)]), question, NOW, limit=3)
    assert got[0] == answer, got


CAREER = [
    ("2024-02-03", "Working as a receptionist at a dental surgery in Headingley."),
    ("2024-06-22", "Priya and I painted the hallway a dark green."),
    ("2025-01-18", "Got a job as a trainee dental nurse at the same surgery."),
    ("2025-05-10", "Ran the Leeds half marathon in two hours and four minutes."),
    ("2025-09-27", "Book club read a novel about a lighthouse keeper."),
]


@pytest.mark.parametrize(("rows", "answer"), [
    # someone else's doing, said with a name and a verb in -ed: no version of the diarist's job
    (CAREER + [("2026-03-14", "Qualified, and got a new job as a dental nurse on the orthodontics team."),
               ("2026-09-12", "Priya hired two new nurses for her physio practice.")],
     "Qualified, and got a new job as a dental nurse on the orthodontics team."),
    # the diarist's own line, started with a word of time or manner: a version of theirs
    (CAREER + [("2026-09-12", "Finally got the practice manager job at the orthodontics clinic in Otley.")],
     "Finally got the practice manager job at the orthodontics clinic in Otley."),
])
def test_whose_doing_a_line_tells(mem, rows, answer):
    got = top(write(mem, rows), "What's my job these days?", NOW, limit=3)
    assert got[0] == answer, got
