"""Schema and consistency checks for the Korean evaluation scenarios in memoir_desktop/eval/scenarios."""

import itertools
import json
import re
from collections import Counter
from datetime import datetime
from importlib import resources

import pytest

TYPES = ("single-hop", "temporal", "multi-hop", "preference")
N_PERSONAS = 5
QUESTIONS_PER_PERSONA = 20
RELATIVE_MARKERS = ("지지난주", "재작년", "작년 이맘때")
# Gold answers must be absolute: none of these may appear in an answer.
RELATIVE_IN_ANSWER = (
    "어제",
    "그저께",
    "엊그제",
    "지난주",
    "지지난주",
    "이번 주",
    "다음 주",
    "지난달",
    "이번 달",
    "다음 달",
    "작년",
    "재작년",
    "올해",
    "내년",
    "이맘때",
)


def _scenario_files():
    root = resources.files("memoir_desktop.eval") / "scenarios"
    return sorted((p for p in root.iterdir() if p.name.endswith(".json")), key=lambda p: p.name)


def _load_all():
    return [(p.name, json.loads(p.read_text(encoding="utf-8"))) for p in _scenario_files()]


SCENARIOS = _load_all()
IDS = [name for name, _ in SCENARIOS]


def test_five_persona_files():
    assert len(SCENARIOS) == N_PERSONAS
    for i, (name, _) in enumerate(SCENARIOS, start=1):
        assert re.fullmatch(rf"persona_{i:02d}_[a-z0-9_]+\.json", name), name


@pytest.mark.parametrize(("name", "sc"), SCENARIOS, ids=IDS)
def test_top_level_schema(name, sc):
    assert set(sc) == {"id", "persona", "user_id", "sessions", "questions"}
    assert name.startswith(sc["id"] + "_")
    assert sc["user_id"] == sc["id"]
    assert isinstance(sc["persona"]["name"], str) and sc["persona"]["name"].strip()
    assert isinstance(sc["persona"]["summary"], str) and sc["persona"]["summary"].strip()


@pytest.mark.parametrize(("name", "sc"), SCENARIOS, ids=IDS)
def test_sessions(name, sc):
    sessions = sc["sessions"]
    assert 12 <= len(sessions) <= 20
    dates = []
    for s in sessions:
        assert set(s) == {"date", "messages"}
        dates.append(datetime.fromisoformat(s["date"]))
        assert 1 <= len(s["messages"]) <= 4
        for m in s["messages"]:
            assert isinstance(m, str) and m.strip()
    assert all(a < b for a, b in itertools.pairwise(dates)), "sessions must be chronological"
    assert (dates[-1] - dates[0]).days >= 365


@pytest.mark.parametrize(("name", "sc"), SCENARIOS, ids=IDS)
def test_questions(name, sc):
    questions = sc["questions"]
    n_sessions = len(sc["sessions"])
    last_session = datetime.fromisoformat(sc["sessions"][-1]["date"])
    assert len(questions) == QUESTIONS_PER_PERSONA
    prefix = "p" + sc["id"].split("_")[1] + "_q"
    for q in questions:
        assert {"id", "type", "question", "answer", "asked_at", "evidence_sessions"} <= set(q)
        assert set(q) <= {"id", "type", "question", "answer", "asked_at", "evidence_sessions", "note"}
        assert q["id"].startswith(prefix), q["id"]
        assert q["type"] in TYPES
        assert q["question"].strip() and q["answer"].strip()
        assert datetime.fromisoformat(q["asked_at"]) > last_session, q["id"]
        ev = q["evidence_sessions"]
        assert ev and len(set(ev)) == len(ev), q["id"]
        assert all(isinstance(i, int) and 0 <= i < n_sessions for i in ev), q["id"]
        if q["type"] == "multi-hop":
            assert len(ev) >= 2, q["id"]
        for marker in RELATIVE_IN_ANSWER:
            assert marker not in q["answer"], f"{q['id']}: relative '{marker}' in gold answer"
    counts = Counter(q["type"] for q in questions)
    assert counts == {t: QUESTIONS_PER_PERSONA // len(TYPES) for t in TYPES}


def test_type_balance_and_unique_ids_overall():
    all_q = [q for _, sc in SCENARIOS for q in sc["questions"]]
    assert len(all_q) == N_PERSONAS * QUESTIONS_PER_PERSONA
    assert Counter(q["type"] for q in all_q) == dict.fromkeys(TYPES, 25)
    ids = [q["id"] for q in all_q]
    assert len(ids) == len(set(ids))
    assert len({sc["id"] for _, sc in SCENARIOS}) == N_PERSONAS
    assert len({sc["persona"]["name"] for _, sc in SCENARIOS}) == N_PERSONAS


def _text(sc):
    return "\n".join(m for s in sc["sessions"] for m in s["messages"])


@pytest.mark.parametrize(("name", "sc"), SCENARIOS, ids=IDS)
def test_persona_uses_hard_relative_time(name, sc):
    text = _text(sc)
    assert any(marker in text for marker in RELATIVE_MARKERS)


def test_every_hard_relative_marker_appears_somewhere():
    text = "\n".join(_text(sc) for _, sc in SCENARIOS)
    for marker in RELATIVE_MARKERS:
        assert marker in text, marker


def test_temporal_answers_are_absolute():
    """Temporal gold answers give a year (e.g. '2025년 8월 16일') unless they name an event."""
    for _, sc in SCENARIOS:
        with_year = [
            q for q in sc["questions"] if q["type"] == "temporal" and re.search(r"20\d\d년", q["answer"])
        ]
        assert len(with_year) >= 4, sc["id"]
