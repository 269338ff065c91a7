"""The hand-written retrieval evaluation sets in tests/data/retrieval are well formed.

No embedder and no database: only the JSON files and the project's own tokenizer, which
decides the rule the paraphrase set exists for (a question shares no content token with
the memories it asks about).
"""

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from memoir_desktop.core.lexical import tokenize_many

DATA = Path(__file__).resolve().parents[1] / "data" / "retrieval"

KINDS = {"줄임말", "한자어-고유어", "외래어", "의역", "상위어-하위어"}
SPLITS = {"fit", "check"}
LANGS = {"ko", "en"}
KO_PRESENT_MARKERS = ("요즘", "지금", "아직", "현재", "요새", "이제")
EN_PRESENT_MARKERS = (
    "now",
    "these days",
    "still",
    "currently",
    "nowadays",
    "lately",
    "anymore",
    "at the moment",
)
REQUIRED_TOPICS = {
    "이사", "직장", "연애", "흡연", "음주", "커피", "운동", "다이어트/체중", "취미",
    "반려동물", "차", "휴대폰", "공부/자격증", "건강/병원", "룸메이트", "출근 방식",
}  # fmt: skip
HANGUL = re.compile("[\uac00-\ud7a3]")


def load(name):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def day(text):
    return dt.date.fromisoformat(text)  # raises on a malformed date


def has_marker(question, lang):
    if lang == "ko":
        return any(m in question for m in KO_PRESENT_MARKERS)
    low = question.casefold()
    return any(re.search(rf"\b{m}\b", low) for m in EN_PRESENT_MARKERS)


@pytest.fixture(scope="module")
def para():
    return load("ko_paraphrase.json")


@pytest.fixture(scope="module")
def rec():
    return load("recency_chains.json")


# --------------------------------------------------------------------------- ko_paraphrase


def test_paraphrase_ids_unique_and_references_exist(para):
    mem_ids = [m["id"] for m in para["memories"]]
    q_ids = [q["id"] for q in para["questions"]]
    assert not [i for i, n in Counter(mem_ids).items() if n > 1]
    assert not [i for i, n in Counter(q_ids).items() if n > 1]
    known = set(mem_ids)
    missing = [(q["id"], r) for q in para["questions"] for r in q["relevant"] if r not in known]
    assert not missing
    assert all(1 <= len(q["relevant"]) <= 2 for q in para["questions"])
    assert all(len(set(q["relevant"])) == len(q["relevant"]) for q in para["questions"])


def test_paraphrase_sizes_and_texts(para):
    assert para["about"].strip()
    assert len(para["memories"]) >= 300
    assert len(para["questions"]) >= 120
    texts = [m["text"] for m in para["memories"]]
    assert all(t.strip() and HANGUL.search(t) for t in texts)
    assert not [t for t, n in Counter(texts).items() if n > 1]
    assert all(q["question"].strip() and HANGUL.search(q["question"]) for q in para["questions"])
    targeted = {r for q in para["questions"] for r in q["relevant"]}
    assert len(targeted) >= 100
    assert len(para["memories"]) - len(targeted) >= 150  # distractors from the same life


def test_paraphrase_dates(para):
    recorded = {m["id"]: day(m["recorded"]) for m in para["memories"]}
    assert all(dt.date(2025, 1, 1) <= d <= dt.date(2026, 11, 30) for d in recorded.values())
    late = [
        (q["id"], r) for q in para["questions"] for r in q["relevant"] if not day(q["asked"]) > recorded[r]
    ]
    assert not late, f"asked on or before the relevant memory was recorded: {late}"


def test_paraphrase_kinds_and_splits(para):
    qs = para["questions"]
    assert {q["kind"] for q in qs} <= KINDS
    assert {q["split"] for q in qs} <= SPLITS
    per_kind = Counter((q["kind"], q["split"]) for q in qs)
    for kind in KINDS:
        fit, check = per_kind[(kind, "fit")], per_kind[(kind, "check")]
        assert fit and check, f"{kind} needs both splits: fit={fit} check={check}"
        assert 0.5 <= fit / (fit + check) <= 0.7, f"{kind}: fit={fit} check={check}"


def test_question_shares_no_content_token_with_its_memories(para):
    text = {m["id"]: m["text"] for m in para["memories"]}
    qs = para["questions"]
    q_tokens = tokenize_many([q["question"] for q in qs])
    ids = sorted({r for q in qs for r in q["relevant"]})
    m_tokens = dict(zip(ids, tokenize_many([text[i] for i in ids])))
    violations = []
    for q, toks in zip(qs, q_tokens):
        assert toks, f"{q['id']} has no content token at all: {q['question']}"
        for r in q["relevant"]:
            shared = set(toks) & set(m_tokens[r])
            if shared:
                violations.append(f"{q['id']} {q['question']!r} / {r} {text[r]!r}: {sorted(shared)}")
    assert not violations, "questions sharing content tokens with their memories:\n" + "\n".join(violations)


# --------------------------------------------------------------------------- recency_chains


def test_recency_ids_unique_and_sizes(rec):
    assert rec["about"].strip()
    chains, distractors = rec["chains"], rec["distractors"]
    assert len(chains) >= 40
    assert len(distractors) >= 100
    ids = (
        [c["id"] for c in chains]
        + [m["id"] for c in chains for m in c["memories"]]
        + [d["id"] for d in distractors]
    )
    assert not [i for i, n in Counter(ids).items() if n > 1]
    texts = [m["text"] for c in chains for m in c["memories"]] + [d["text"] for d in distractors]
    assert all(t.strip() for t in texts)
    assert not [t for t, n in Counter(texts).items() if n > 1]


def test_recency_topics_and_languages(rec):
    chains = rec["chains"]
    assert {c["lang"] for c in chains} <= LANGS
    assert REQUIRED_TOPICS <= {c["topic"] for c in chains}
    assert 8 <= sum(c["lang"] == "en" for c in chains) <= 15
    wrong = []
    for c in chains:
        for text in [m["text"] for m in c["memories"]] + [q["question"] for q in c["questions"]]:
            if bool(HANGUL.search(text)) != (c["lang"] == "ko"):
                wrong.append((c["id"], text))
    for d in rec["distractors"]:
        if d.get("lang") is not None and bool(HANGUL.search(d["text"])) != (d["lang"] == "ko"):
            wrong.append((d["id"], d["text"]))
    assert not wrong, f"text not in its declared language: {wrong}"


def test_chain_versions_are_ordered_and_newest_is_last(rec):
    problems = []
    for c in rec["chains"]:
        mems = c["memories"]
        if not 3 <= len(mems) <= 5:
            problems.append(f"{c['id']}: {len(mems)} versions")
        dates = [day(m["recorded"]) for m in mems]
        if any(b <= a for a, b in zip(dates, dates[1:])):
            problems.append(f"{c['id']}: recorded dates not strictly increasing {dates}")
        if c["newest"] != mems[-1]["id"]:
            problems.append(f"{c['id']}: newest {c['newest']} is not the last memory {mems[-1]['id']}")
        if len({m["text"] for m in mems}) != len(mems):
            problems.append(f"{c['id']}: repeated version text")
        if len(c["questions"]) < 2:
            problems.append(f"{c['id']}: fewer than two questions")
        late = [q["question"] for q in c["questions"] if not day(q["asked"]) > dates[-1]]
        if late:
            problems.append(f"{c['id']}: asked on or before the newest memory: {late}")
    assert not problems, "\n".join(problems)


def test_each_chain_asks_in_the_present(rec):
    missing = [
        c["id"]
        for c in rec["chains"]
        if not any(has_marker(q["question"], c["lang"]) for q in c["questions"])
    ]
    assert not missing, f"chains without a present-tense marker in any question: {missing}"


def test_recency_distractor_dates(rec):
    dates = [day(d["recorded"]) for d in rec["distractors"]]
    assert all(dt.date(2024, 1, 1) <= d <= dt.date(2026, 11, 30) for d in dates)
