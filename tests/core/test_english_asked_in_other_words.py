"""An English question asked in other words gets its memory first, not a line that shares one common
word with it ("winter", "live", "getting"): English questions are reordered by the learned second stage
too (rerank_weights.json), over the first stage's ten best only, so which ten are shown does not change."""

from datetime import datetime

import numpy as np
import pytest

from memoir_desktop.core.search import rerank
from tests.core.dated_journal import top, write

NOW = datetime(2026, 11, 20, 12)

ROWS = [
    ("2025-12-02", 'Winter tyres fitted on the car, £340 at the garage on Mill Lane.'),
    ("2025-12-09", 'Dad slipped on the ice outside the post office and cracked a rib.'),
    ("2025-12-20", 'Office Christmas party at the bowling alley; I came last.'),
    ("2026-01-05", "Signed up for a beginners' Spanish evening course."),
    ("2026-01-17", 'Ordered a new sofa, grey, arrives in eight weeks.'),
    ("2026-02-01", "My brother Tom's band played their first gig at the Crown."),
    ("2026-02-14", 'Priya made me a photo book of our first year together.'),
    ("2026-03-03", 'Book club picked a Japanese novel about a convenience store clerk.'),
    ("2026-03-15", 'Repainted the hallway a pale sage green.'),
    ("2026-04-02", 'The vet says Biscuit needs two teeth out next month.'),
    ("2026-04-20", 'Ran my first 10k in 58 minutes along the canal.'),
    ("2026-05-09", 'Lunch with Grandma at the garden centre café, she had the scones.'),
    ("2026-05-30", 'Our street had a power cut for six hours during the storm.'),
    ("2026-06-12", 'Started a sourdough starter and named it Doughnald.'),
    ("2026-06-28", "The kids' school sports day: Amy won the egg-and-spoon race."),
    ("2026-07-11", 'Gave a talk at work about the new booking system.'),
    ("2026-07-25", 'Camping in the Lake District; it rained for three days straight.'),
    ("2026-08-08", 'Lost my wedding ring in the sea at Whitby and a stranger found it.'),
    ("2026-08-30", 'Swapped my old phone for a refurbished one with a better camera.'),
    ("2026-09-14", "Priya's parents came over for dinner; I made a lamb tagine."),
    ("2026-10-03", 'Moved my pension into a lower-fee fund.'),
    ("2026-10-19", 'Tom got engaged to his girlfriend Nadia in Lisbon.'),
    ("2026-11-02", 'Bought tickets for the panto in December.'),
    ("2026-11-09", 'Saw a live jazz trio at the Crown with Priya.'),
    ("2026-11-12", 'Grandma moved into a care home in Harrogate.'),
    ("2026-11-14", 'Booked the boiler service for Thursday morning.'),
    ("2026-11-15", 'My boss asked me to lead the spring product launch.'),
]


@pytest.mark.parametrize(("question", "answer"), [
    ("When did my father injure his chest in a winter tumble?",
     "Dad slipped on the ice outside the post office and cracked a rib."),
    ("Where did my nan go to live?", "Grandma moved into a care home in Harrogate."),
    ("When is the heating getting checked?", "Booked the boiler service for Thursday morning."),
    ("What did my manager put me in charge of?", "My boss asked me to lead the spring product launch."),
])
def test_the_memory_meant_comes_before_one_sharing_a_common_word(mem, question, answer):
    got = top(write(mem, ROWS), question, NOW, limit=3)
    assert got[0] == answer, got


def test_only_the_first_ten_are_reordered():
    scores = np.array([0.1, 0.9, 0.5] + [0.0] * 7 + [5.0, 4.0])
    assert rerank.reordered(scores, 10)[:3] == [1, 2, 0]
    assert rerank.reordered(scores, 10)[10:] == [10, 11]  # past the tenth, nothing moves up
    assert rerank.reordered(scores, 30)[:2] == [10, 11]
