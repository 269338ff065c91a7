"""The trust evaluation sets in tests/data/retrieval are well formed (crosslingual.json,
small_journals.json, changing_facts.json; used by memoir_desktop/eval/trust_retrieval.py).

No embedder and no database: only the JSON files.
"""

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "retrieval"
HANGUL = re.compile("[\uac00-\ud7a3]")
LATIN = re.compile("[A-Za-z]")
LANG_PAIRS = {"en→ko", "konglish→ko", "ko→en", "en→en"}


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text("utf-8"))


def _day(s: str) -> dt.date:
    return dt.date.fromisoformat(s)


def _unique(ids: list[str]) -> None:
    dupes = [i for i, n in Counter(ids).items() if n > 1]
    assert not dupes, f"duplicate ids: {dupes}"


# --------------------------------------------------------------------------- crosslingual


@pytest.fixture(scope="module")
def cross():
    return _load("crosslingual.json")


@pytest.fixture(scope="module")
def para():
    return _load("ko_paraphrase.json")


def test_crosslingual_shape(cross):
    assert set(cross) >= {"about", "memories_en", "questions"}
    for m in cross["memories_en"]:
        assert set(m) == {"id", "text", "recorded"}
        assert not HANGUL.search(m["text"]), m  # the English persona writes English
    for q in cross["questions"]:
        assert set(q) == {"id", "question", "relevant", "lang_pair", "asked", "split"}
        assert q["lang_pair"] in LANG_PAIRS and q["split"] in {"fit", "check"} and q["relevant"]
    _unique([m["id"] for m in cross["memories_en"]] + [q["id"] for q in cross["questions"]])


def test_crosslingual_sizes(cross):
    n = Counter(q["lang_pair"] for q in cross["questions"])
    assert sum(n.values()) >= 60
    assert n["en→ko"] + n["konglish→ko"] >= 40 and n["ko→en"] >= 20
    assert 50 <= len(cross["memories_en"]) <= 80
    for pair in LANG_PAIRS:  # both splits in every pair
        assert {q["split"] for q in cross["questions"] if q["lang_pair"] == pair} == {"fit", "check"}


def test_crosslingual_ids_and_dates(cross, para):
    korean = {m["id"]: m for m in para["memories"]}
    english = {m["id"]: m for m in cross["memories_en"]}
    for q in cross["questions"]:
        store = english if q["lang_pair"].endswith("en") else korean
        for r in q["relevant"]:
            assert r in store, (q["id"], r)
            assert _day(q["asked"]) > _day(store[r]["recorded"]), q["id"]
        assert len(set(q["relevant"])) == len(q["relevant"])


def test_crosslingual_question_languages(cross):
    for q in cross["questions"]:
        text, pair = q["question"], q["lang_pair"]
        if pair.startswith("en"):
            assert not HANGUL.search(text), q
        elif pair == "ko→en":
            assert HANGUL.search(text) and not LATIN.search(text), q
        else:  # Konglish: both scripts
            assert HANGUL.search(text) and LATIN.search(text), q


# --------------------------------------------------------------------------- small journals


@pytest.fixture(scope="module")
def small():
    return _load("small_journals.json")


def test_small_journals_sizes(small):
    per = Counter(j["size"] for j in small["journals"])
    assert set(per) == {1, 3, 10, 30} and min(per.values()) >= 5
    for j in small["journals"]:
        assert len(j["memories"]) == j["size"], j["id"]


def test_small_journals_rules(small):
    every: list[str] = [j["id"] for j in small["journals"]]
    nonsense_lists = set()
    for j in small["journals"]:
        assert set(j) == {"id", "size", "lang", "asked", "memories", "queries", "nonsense"}
        ids = {m["id"] for m in j["memories"]}
        every += [m["id"] for m in j["memories"]]
        assert all(_day(j["asked"]) > _day(m["recorded"]) for m in j["memories"]), j["id"]
        assert len(j["queries"]) >= 2, j["id"]
        assert {q["kind"] for q in j["queries"]} == {"same-language", "cross-language"}, j["id"]
        for q in j["queries"]:
            assert q["query"].strip() and q["relevant"] and set(q["relevant"]) <= ids, (j["id"], q)
        assert len(j["nonsense"]) >= 10 and len(set(j["nonsense"])) == len(j["nonsense"]), j["id"]
        texts = {m["text"].casefold() for m in j["memories"]}
        assert not texts & {s.casefold() for s in j["nonsense"]}, j["id"]
        nonsense_lists.add(tuple(j["nonsense"]))
    _unique(every)
    assert len(nonsense_lists) == len(small["journals"])  # not the same list everywhere
    pool = {s for j in small["journals"] for s in j["nonsense"]}
    assert any(HANGUL.search(s) for s in pool) and any(LATIN.search(s) for s in pool)
    assert any(s.replace(" ", "").isdigit() for s in pool)


def test_small_journals_have_short_lines(small):
    lines = [m["text"] for j in small["journals"] for m in j["memories"]]
    assert sum(1 for t in lines if len(t) <= 5) >= 20
    assert any(HANGUL.search(t) for t in lines) and any(not HANGUL.search(t) for t in lines)


# --------------------------------------------------------------------------- changing facts


@pytest.fixture(scope="module")
def changing():
    return _load("changing_facts.json")


def test_changing_facts_stores(changing):
    stores = changing["stores"]
    assert len(stores) >= 6 and {s["lang"] for s in stores} == {"ko", "en"}
    every = [s["id"] for s in stores]
    for s in stores:
        mems = {m["id"]: m for m in s["memories"]}
        every += list(mems) + [q["id"] for q in s["questions"]]
        assert 2 <= len(s["topics"]) <= 4, s["id"]
        in_topics = set()
        for t in s["topics"]:
            assert len(t["states"]) >= 2, (s["id"], t["topic"])
            days = [_day(mems[i]["recorded"]) for i in t["states"]]
            assert days == sorted(days) and len(set(days)) == len(days), (s["id"], t["topic"])
            in_topics |= set(t["states"])
        assert len(mems) - len(in_topics) >= 5, s["id"]  # everyday memories beside the topics
        for m in s["memories"]:
            if s["lang"] == "en":
                assert not HANGUL.search(m["text"]), m
            else:
                assert HANGUL.search(m["text"]), m
    _unique(every)


def test_changing_facts_questions(changing):
    for s in changing["stores"]:
        mems = {m["id"]: m for m in s["memories"]}
        topics = {t["topic"]: t["states"] for t in s["topics"]}
        kinds = Counter(q["when"] for q in s["questions"])
        assert kinds["present"] >= 3 and kinds["past"] >= 3, s["id"]
        for q in s["questions"]:
            states = topics[q["topic"]]
            assert q["newest"] == states[-1], q["id"]
            assert all(_day(q["asked"]) > _day(mems[i]["recorded"]) for i in states), q["id"]
            if q["when"] == "present":
                assert set(q) == {"id", "question", "when", "topic", "asked", "newest", "older"}
                assert q["older"] == states[:-1], q["id"]
            else:
                assert set(q) == {"id", "question", "when", "topic", "asked", "relevant", "newest"}
                assert q["relevant"] and set(q["relevant"]) <= set(states[:-1]), q["id"]
