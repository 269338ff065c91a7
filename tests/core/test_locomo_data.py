"""LoCoMo loader: parsing on small inline JSON, plus a smoke load of the real dev file when present."""

import json
from datetime import datetime
from pathlib import Path

import pytest

from memoir_desktop.eval.locomo_data import (
    CATEGORY_NAMES,
    category_label,
    load_locomo,
    normalize_dia_ids,
    parse_session_date,
)

REAL_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo" / "locomo-dev.json"

SAMPLE = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Bo!"},
                {
                    "speaker": "Bo",
                    "dia_id": "D1:2",
                    "text": "Look at my dog.",
                    "img_url": ["http://example.invalid/x.jpg"],
                    "blip_caption": "a photo of a dog on a beach",
                },
            ],
            "session_2_date_time": "9:05 am on 25 June, 2023",
            "session_2": [{"speaker": "Ana", "dia_id": "D2:1", "text": "Back from Rome."}],
            # a date without a session (as in conv-26): must not create a session
            "session_3_date_time": "12:00 am on 1 July, 2023",
        },
        "qa": [
            {"question": "When did Ana go to Rome?", "answer": 2023, "evidence": ["D2:1"], "category": 2},
            {"question": "What pet?", "answer": "dog", "evidence": ["D1:2; D2:01"], "category": 4},
            {"question": "Odd ids", "answer": "x", "evidence": ["D:1:1", "D1:1"], "category": 1},
            {"question": "Adversarial", "adversarial_answer": "cat", "evidence": ["D1:2"], "category": 5},
        ],
        "observation": {
            "session_2_observation": {"Ana": [["Ana went to Rome.", "D2:1"]]},
            "session_1_observation": {
                "Bo": [["Bo has a dog.", ["D1:2"]], ["Bo likes beaches.", "D1:2, D1:1"]],
                "Ana": [["Ana greets Bo.", "['D1:1']"]],
            },
        },
        "session_summary": {},
        "event_summary": {},
    }
]


@pytest.fixture
def sample_path(tmp_path):
    p = tmp_path / "locomo.json"
    p.write_text(json.dumps(SAMPLE), encoding="utf-8")
    return p


def test_parse_session_date():
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert parse_session_date("12:09 am on 13 September, 2023") == datetime(2023, 9, 13, 0, 9)
    assert parse_session_date("12:30 pm on 1 Jan, 2022") == datetime(2022, 1, 1, 12, 30)
    with pytest.raises(ValueError):
        parse_session_date("yesterday")


def test_normalize_dia_ids():
    assert normalize_dia_ids("D8:6") == ["D8:6"]
    assert normalize_dia_ids(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert normalize_dia_ids("D:11:26") == ["D11:26"]
    assert normalize_dia_ids("D30:05") == ["D30:5"]
    assert normalize_dia_ids("D1:3, D1:4,D1:5") == ["D1:3", "D1:4", "D1:5"]
    assert normalize_dia_ids("['D15:3', 'D15:5']") == ["D15:3", "D15:5"]
    assert normalize_dia_ids(["D1:1", ["D1:1", "D2:2"]]) == ["D1:1", "D2:2"]
    assert normalize_dia_ids(None) == []
    assert normalize_dia_ids("") == []


def test_load_sample(sample_path):
    (conv,) = load_locomo(sample_path)
    assert conv.sample_id == "conv-x"
    assert (conv.speaker_a, conv.speaker_b) == ("Ana", "Bo")
    assert [s.index for s in conv.sessions] == [1, 2]
    assert conv.sessions[1].date == datetime(2023, 6, 25, 9, 5)
    t = conv.sessions[0].turns[1]
    assert t.dia_id == "D1:2"
    assert t.text == "Look at my dog. [shares a photo: a photo of a dog on a beach]"
    assert conv.sessions[0].turns[0].text == "Hi Bo!"

    qa = conv.qa
    assert qa[0].answer == "2023" and qa[0].category == 2 and qa[0].evidence == ["D2:1"]
    assert qa[1].evidence == ["D1:2", "D2:1"]
    assert qa[2].evidence == ["D1:1"]
    assert qa[3].answer == "cat" and qa[3].category == 5

    obs = conv.observations
    assert [o.session for o in obs] == [1, 1, 1, 2]  # sorted by session number
    by_text = {o.text: o for o in obs}
    assert by_text["Bo has a dog."].dia_ids == ["D1:2"]
    assert by_text["Bo likes beaches."].dia_ids == ["D1:2", "D1:1"]
    assert by_text["Ana greets Bo."].dia_ids == ["D1:1"]
    assert by_text["Ana went to Rome."].speaker == "Ana"


def test_category_names():
    assert set(CATEGORY_NAMES) == {1, 2, 3, 4, 5}
    assert CATEGORY_NAMES[1] == ("multi-hop", "Single Hop")
    assert CATEGORY_NAMES[4] == ("single-hop", "Open Domain")
    assert "Single Hop" in category_label(1) and category_label(1).startswith("1 multi-hop")


def test_load_real_dev_file():
    if not REAL_DATA.exists():
        pytest.skip(f"LoCoMo dev data not present ({REAL_DATA.name})")
    convs = load_locomo(REAL_DATA)
    assert [c.sample_id for c in convs] == ["conv-26", "conv-30", "conv-41"]
    for c in convs:
        ids = c.dia_ids()
        assert c.sessions and c.observations and c.qa
        assert all(s.date.year >= 2022 for s in c.sessions)
        # every normalised evidence / observation id refers to a real turn
        assert all(e in ids for q in c.qa for e in q.evidence)
        assert all(d in ids for o in c.observations for d in o.dia_ids)
    conv26 = convs[0]
    assert len(conv26.sessions) == 19  # date keys for 20-35 without sessions are ignored
    answerable = [q for c in convs for q in c.qa if q.category in (1, 2, 3, 4) and q.evidence]
    assert len(answerable) == 383
