"""An entry gives several memories; a question that finds one of them often needs another that
shares no word with it (search/neighbours.py): "Who was with me when I sprained my ankle?" finds
the sprain, and the entry's other line says who drove. Memories of other entries never move up
for that reason, and the best-ranked ones keep their places."""

from __future__ import annotations

from datetime import datetime

import pytest

SPRAIN = "Sprained my ankle on the trail at Mount Tam"
DRIVE = "Dana drove me to urgent care in Mill Valley"
DAYS = [
    ("2025-01-04", ["Started a pottery class on Tuesday evenings", "The teacher is called Ines"]),
    ("2025-01-19", ["Went to urgent care for a bad cough", "The doctor said it was bronchitis"]),
    ("2025-02-02", ["My brother Tom moved to Denver"]),
    ("2025-02-16", ["Dana lent me her camping stove"]),
    ("2025-03-08", [SPRAIN, DRIVE, "Ate a huge burrito afterwards to cheer up"]),
    ("2025-03-22", ["Ankle brace arrived in the mail"]),
    ("2025-04-05", ["Hiked the coastal trail with Priya", "Saw whales near the point"]),
    ("2025-04-19", ["Priya is training for a marathon"]),
    ("2025-05-03", ["Took the car in for new brakes"]),
    ("2025-05-17", ["Mom visited for the weekend", "We went to the farmers market"]),
    ("2025-06-01", ["Sam drove us to the lake for a picnic"]),
    ("2025-06-14", ["Twisted my wrist at climbing, nothing serious"]),
    ("2025-06-28", ["Started physical therapy twice a week"]),
    ("2025-07-12", ["Bought new trail running shoes"]),
    ("2025-07-26", ["Went to a concert with Leo in Oakland"]),
    ("2025-08-09", ["Leo is a nurse at the children's hospital"]),
    ("2025-08-23", ["Walked the trail at Mount Tam again, ankle held up fine"]),
    ("2025-09-06", ["Friends came over for a board game night"]),
    ("2025-09-20", ["Had a checkup, blood pressure normal"]),
    ("2025-10-04", ["Carpooled to work with Jen all week"]),
]
NOW = datetime(2025, 11, 1, 12)


@pytest.fixture
def journal(mem):
    for day, lines in DAYS:
        when = datetime.fromisoformat(day).replace(hour=21)
        eid = mem.journal.write(" ".join(lines), timestamp=when)
        for line in lines:
            mem.add(line, infer=False, user_id="me", timestamp=when, entry_id=eid)
    return mem


def _found(mem, question: str, limit: int = 8) -> list[str]:
    return [h["memory"] for h in mem.search(question, user_id="me", limit=limit, now=NOW)["results"]]


def test_the_entrys_other_line_comes_with_the_one_the_question_finds(journal):
    got = _found(journal, "Who was with me when I sprained my ankle?")
    assert got[0] == SPRAIN or SPRAIN in got[:2], got
    assert DRIVE in got, got


def test_the_best_ranked_keep_their_places(journal):
    from memoir_desktop.core.search import neighbours

    question = "Who was with me when I sprained my ankle?"
    with_neighbours = _found(journal, question)
    keep = neighbours.KEEP
    neighbours.KEEP = len(with_neighbours)  # nothing below the best moves
    try:
        without = _found(journal, question)
    finally:
        neighbours.KEEP = keep
    assert with_neighbours[:keep] == without[:keep]
    assert DRIVE not in without  # the line shares no word with the question: only its entry brings it

