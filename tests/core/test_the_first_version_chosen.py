"""A question about the first version ("at first", "처음") is answered by the same choice among the
best-ranked lines as one about now or the version before (present.py, mode "first").

"How often did I have the kids at first?" ranked "Started seeing a therapist, Dr. Okafor…" first:
the grouping by meaning took the oldest line near the question, which is about something else. The
choice weighs how a first version looks (an older line with a newer version of the same thing near
it, close to the question) and takes the first custody line.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.core import dated_journal

NOW = datetime(2026, 11, 20, 12)

ROWS = [
    ("2024-02-10", "Started seeing a therapist, Dr. Okafor, on Thursday evenings"),
    ("2024-04-06", "Thesis topic for now: loanwords in Welsh radio"),
    ("2024-07-13", "I have the kids every other weekend plus Wednesday dinners"),
    ("2024-10-05", "Switched therapists; Dr. Lind does video sessions on Mondays"),
    ("2025-01-18", "My supervisor talked me into changing the thesis to code-switching on Welsh TikTok"),
    ("2025-04-26", "New custody arrangement: the kids are with me week on, week off"),
    ("2025-08-09", "Stopped therapy for now; I feel steady"),
    ("2026-02-21", "Submitted the thesis at last"),
    ("2026-07-04", "Barbecue at Sam's; the kids won the water fight"),
]


@pytest.mark.parametrize(("question", "first"), [
    ("How often did I have the kids at first?", "I have the kids every other weekend plus Wednesday dinners"),
    ("What was the name of my first therapist?", "Started seeing a therapist, Dr. Okafor, on Thursday evenings"),
    ("What was my thesis about originally?", "Thesis topic for now: loanwords in Welsh radio"),
])
def test_a_question_about_the_first_version_gets_it(mem, question, first):
    got = dated_journal.top(dated_journal.write(mem, ROWS), question, NOW)
    assert got[0] == first, got


def test_a_question_about_now_still_gets_the_newest(mem):
    got = dated_journal.top(dated_journal.write(mem, ROWS), "What's the custody arrangement now?", NOW)
    assert got[0] == "New custody arrangement: the kids are with me week on, week off", got
