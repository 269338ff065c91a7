"""A Korean question about now whose first line a kind of change (states.py's list) set is chosen for
too (search/present.py, OVER_THE_LIST): the list may have put an old or unrelated line first while the
newest version says it in words the list does not group. The choice may only put a newer line first,
and must beat the list's answer by a margin: a habit the diarist ended stays first over an older
version sharing more of the question's words."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from memoir_desktop.eval.blind_retrieval import _asked
from memoir_desktop.eval.ko_retrieval import _load as load_set

BLIND = Path(__file__).resolve().parents[1] / "data" / "blind"


def _journal(folder: str, jid: str) -> dict:
    data = json.loads((BLIND / folder / "ko.json").read_text("utf-8"))
    return next(j for j in data["journals"] if j["id"] == jid)


# Two questions of spent blind sets (dev data; the weights were fitted on them) where the list put the
# line naming the medicine first, or an everyday line sharing the illness's word, and the newest dose
# was written as "… 줄였다", "처방이 … 내려갔다".
@pytest.mark.parametrize(("folder", "jid", "question"), [
    ("2026-12-07g", "ko2", "당뇨약 지금 하루에 몇 알 먹어?"),
    ("2026-12-06b", "ko2", "지금 혈압약 몇 mg 먹고 있지?"),
])
def test_the_newest_dose_comes_first_where_the_list_put_another_line_first(mem, folder, jid, question):
    j = _journal(folder, jid)
    ids = load_set(mem, jid, j["memories"])
    q = next(q for q in j["questions"] if q["text"] == question)
    hits = mem.search(question, user_id=jid, limit=5, now=_asked(q["asked"]))["results"]
    assert hits[0]["id"] == ids[q["relevant"][0]], [h["memory"] for h in hits]
    assert "present" in hits[0]["explain"]  # the choice put it there


RETRIEVAL = Path(__file__).resolve().parents[1] / "data" / "retrieval"


# The project's recency chains: four versions of one habit among 280 memories. Allowed to put an older
# line first, the choice took the version sharing the question's words ("커피를 하루 세 잔씩 마신다")
# over the newest that ended it.
def test_a_habit_the_diarist_ended_or_changed_stays_first_over_an_older_version(mem):
    data = json.loads((RETRIEVAL / "recency_chains.json").read_text("utf-8"))
    ids = load_set(mem, "chains", [m for c in data["chains"] for m in c["memories"]] + data["distractors"])
    for question in ("요즘 커피 하루에 몇 잔 마셔?", "나 아직도 담배 피워?", "요즘 술 얼마나 마셔?"):
        chain = next(c for c in data["chains"] if any(q["question"] == question for q in c["questions"]))
        asked = next(q["asked"] for q in chain["questions"] if q["question"] == question)
        hits = mem.search(question, user_id="chains", limit=5,
                          now=datetime.fromisoformat(asked).replace(hour=12))["results"]
        assert hits[0]["id"] == ids[chain["newest"]], (question, [h["memory"] for h in hits])
