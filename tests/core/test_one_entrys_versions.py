"""Memories of one entry share its time. When two of them are taken for versions of what a question
asks about now, the better ranked one is the answer: the last of a sort by time alone was the worse
ranked of the two, and "두부 검진비가 32만 원 나왔다" went first for "두부 사료 지금 뭐 먹여?" in place
of the new food written down in the same entry."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.core import dated_journal

KO = [
    ("2024-05-01", "두부 사료는 보호소에서 먹던 오리젠을 그대로 먹인다"),
    ("2024-07-13", "망원동 국밥집 단골이 됐다"),
    ("2024-09-10", "두부가 살쪄서 사료를 체중관리용으로 바꿨다"),
    ("2025-03-02", "여름휴가로 속초에 다녀왔다"),
    ("2025-10-17", "두부 신장 수치가 높게 나와서 사료를 힐스 k/d로 바꿨다"),
    ("2025-10-17", "두부 검진비가 32만 원 나왔다"),
    ("2025-10-17", "동물병원 대기실에서 한 시간 기다렸다"),
    ("2025-11-02", "추석에 부모님 댁에서 송편을 빚었다"),
]
EN = [
    ("2024-05-01", "Moose gets carprofen every morning for his hips"),
    ("2024-07-13", "Repainted the kitchen a pale green"),
    ("2025-10-17", "The vet switched Moose to monthly Librela injections for his hips"),
    ("2025-10-17", "Moose's vet bill came to $240 this time"),
    ("2025-10-17", "Waited an hour in the vet's waiting room"),
    ("2025-11-02", "Booked flights to Lisbon for October"),
]
NOW = datetime(2025, 11, 20, 12)


@pytest.mark.parametrize("rows,question,answer", [
    (KO, "두부 사료 지금 뭐 먹여?", "두부 신장 수치가 높게 나와서 사료를 힐스 k/d로 바꿨다"),
    (EN, "What is Moose getting for his hips now?", "The vet switched Moose to monthly Librela injections for his hips"),
])
def test_of_one_entrys_memories_the_better_ranked_answers(mem, rows, question, answer):
    dated_journal.write(mem, rows)
    got = dated_journal.top(mem, question, NOW)
    assert got[0] == answer, got
