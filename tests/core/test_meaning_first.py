"""A question asked in other words than the journal's gets the line closest in meaning first
(search/meaning_first.py): "눈 수정체 흐려진 거 고친 게 언제였지?" is answered by "백내장 수술을 받았다", not by
the line the ranking put first ("당화혈색소가 올라서 …"). Not for a question about a version, and not
where a stage reading words (the list of kinds) set the first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoir_desktop.eval.blind_retrieval import _asked
from memoir_desktop.eval.ko_retrieval import _load as load_set
from tests.core import dated_journal

BLIND = Path(__file__).resolve().parents[1] / "data" / "blind"


# Paraphrase questions of spent blind sets (dev data: the rule was chosen on them, so these are
# regression tests, not evidence); the ranking put a line sharing a word first.
@pytest.mark.parametrize(("folder", "lang", "question"), [
    ("2026-12-06b", "ko", "눈 수정체 흐려진 거 고친 게 언제였지?"),
    ("2026-12-06f", "ko", "고양이 불임 시술은 했었나?"),
    ("2026-12-07d", "en", "When did my daughter's baby incisor come out?"),
])
def test_a_question_in_other_words_gets_the_line_closest_in_meaning(mem, folder, lang, question):
    data = json.loads((BLIND / folder / f"{lang}.json").read_text("utf-8"))
    j = next(j for j in data["journals"] if any(q["text"] == question for q in j["questions"]))
    ids = load_set(mem, j["id"], j["memories"])
    q = next(q for q in j["questions"] if q["text"] == question)
    hits = mem.search(question, user_id=j["id"], limit=5, now=_asked(q["asked"]))["results"]
    assert hits[0]["id"] in {ids[r] for r in q["relevant"]}, [h["memory"] for h in hits]


# "회사 어디야?" names no time (no version mode), and the newest job the list of kinds finds is not the
# closest by meaning; an everyday line at the office ("회사 근처 …") must not take its place (as in the
# project's changing-facts set, which lost newest@1 93.1 -> 72.4 without this exception).
JOBS = [
    ("2023-03-02", "첫 직장으로 종로 보험회사에 입사했다"),
    ("2023-09-14", "회사 근처 국밥집 단골이 됐다"),
    ("2024-05-20", "회사 동기들과 제주도 워크숍을 다녀왔다"),
    ("2024-11-11", "판교 게임회사로 이직했다"),
    ("2025-03-08", "회사 앞 헬스장에 등록했다"),
]


def test_a_kind_the_list_names_keeps_its_first(mem):
    from datetime import datetime

    dated_journal.write(mem, JOBS, user_id="ko")
    got = dated_journal.top(mem, "회사 어디야?", datetime(2025, 6, 1, 12), user_id="ko")
    assert got[0] == "판교 게임회사로 이직했다", got
