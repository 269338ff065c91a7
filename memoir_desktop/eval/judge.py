"""LLM-as-a-Judge in the style of the Mem0 paper (arXiv 2504.19413): CORRECT or WRONG.

Generous on form (a longer answer, another language or another date format that means the
same thing is CORRECT), strict on substance (another fact, another date, "I don't remember"
or a hedge over several candidates is WRONG). The verdict comes through a tool call
(`judge_answer`), with a JSON fallback for servers without tools, via the project's LLMClient.

    python -m memoir_desktop.eval.judge cases.jsonl [--judge-model M] [--out labelled.jsonl]

judges arbitrary {"question", "gold", "answer"} lines (optional "type", "asked_at") and prints
J with a 95% Wilson interval, overall and per type.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, field_validator

from memoir_desktop.core import config
from memoir_desktop.core.keys import secrets
from memoir_desktop.core.llm import Gate, LLMBadReply, LLMClient, LLMUnavailable, Tool
from memoir_desktop.core.llm.purposes import Purpose, register
from memoir_desktop.eval.stats import wilson_interval

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2

LABELS = ("CORRECT", "WRONG")

JUDGE_SYSTEM = """You grade answers given by a personal-memory assistant. You will be given
(1) a question the user asked about their own past conversations or journal,
(2) a 'gold' (ground truth) answer, and
(3) a generated answer,
and you label the generated answer CORRECT or WRONG.

Be generous with the FORM of the answer:
- The gold answer is usually short; the generated answer may be much longer, chattier, or in another
  language. As long as it states the same fact as the gold answer, it is CORRECT.
- An answer that contains the gold answer together with other true-sounding details is CORRECT.
- For time questions the gold answer is a specific date, month, year or duration. The same date written
  differently ("2025-03-07", "March 7, 2025", "7 May" vs "May 7th", "2025년 3월 7일", "3월 7일 금요일") is
  CORRECT. A relative expression ("last Tuesday") is CORRECT only if, counted from the date the question
  was asked, it points to the same date or period.
Be strict with the SUBSTANCE:
- A different fact, person, place, number, date, month or year is WRONG, even if it is close.
- "I don't remember", "I don't know", a refusal, or a question back to the user is WRONG.
- An answer that hedges between several candidates, one of which is the gold, is WRONG.
- If the question asks about the current/latest state and the answer gives an outdated one, it is WRONG.

Give a one-sentence reason, then the label. Never output both labels. Call judge_answer with
{"reason": "...", "label": "CORRECT" or "WRONG"}."""

JUDGE_USER = """Question: {question}
{asked}Gold answer: {gold}
Generated answer: {answer}"""

# The evaluation's own request (a developer tool): never part of the app's disclosure.
register(Purpose("judge", "An evaluation question, its reference answer and memoir's answer, to grade it.",
                 "평가 질문과 정답, memoir의 답을 보내 채점해요.", ("evaluation",), app=False, journal=False))


class JudgeArgs(BaseModel):
    label: str
    reason: str = ""

    @field_validator("label", mode="before")
    @classmethod
    def _label(cls, value):
        label = str(value or "").strip().strip(".\"'").upper()
        if label not in LABELS:
            raise ValueError("label must be CORRECT or WRONG")
        return label


JUDGE_TOOL = Tool(
    name="judge_answer",
    description="Record whether the generated answer is CORRECT or WRONG against the gold answer.",
    parameters={
        "type": "object",
        "properties": {
            "reason": {"type": "string", "description": "one sentence"},
            "label": {"type": "string", "enum": list(LABELS)},
        },
        "required": ["label"],
    },
    args=JudgeArgs,
)


@dataclass
class Verdict:
    label: str  # CORRECT | WRONG
    reason: str
    error: str | None = None  # set when the judge itself failed (counted as WRONG)

    @property
    def correct(self) -> bool:
        return self.label == "CORRECT"


class NoLLMConfigured(RuntimeError):
    pass


def llm_settings(model: str | None = None) -> config.Settings:
    """Settings the way the app sees them headless: defaults plus the MEMOIR_LLM_* environment."""
    s = config.Settings()
    for env, attr in config.ENV_OVERRIDES.items():
        if os.environ.get(env):
            setattr(s, attr, os.environ[env])
    if model:
        s.llm_model = model
    return s


def require_llm(prog: str) -> str | None:
    """A one-line error message when no LLM is configured, else None."""
    if os.environ.get("MEMOIR_LLM_BASE_URL") or secrets.get_api_key():
        return None
    return (f"{prog}: no LLM configured: set MEMOIR_LLM_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) "
            "and MEMOIR_LLM_MODEL, or MEMOIR_LLM_API_KEY for OpenAI")


class Judge:
    """Labels answers; counts its own calls and tokens (kept out of the app's metrics)."""

    def __init__(self, *, model: str | None = None, client: LLMClient | None = None):
        st = llm_settings(model)
        self.model = st.llm_model
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.client = client or LLMClient(base_url=st.llm_base_url or None, api_key=secrets.get_api_key(),
                                          model=st.llm_model, timeout=st.llm_timeout_s,
                                          max_retries=st.llm_max_retries, metric_sink=self._count)
        if not self.client.configured:
            raise NoLLMConfigured("no LLM configured for the judge")

    def _count(self, stage: str, ms: float, prompt_tokens: int, completion_tokens: int) -> None:
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens

    def judge(self, question: str, gold: str, answer: str | None, asked_at: str | None = None) -> Verdict:
        """Raises LLMUnavailable when the judge cannot be reached (the caller stops the run)."""
        if not (answer or "").strip():
            return Verdict("WRONG", "no answer was given")
        asked = f"Asked on: {asked_at}\n" if asked_at else ""
        msgs = [{"role": "system", "content": JUDGE_SYSTEM},
                {"role": "user", "content": JUDGE_USER.format(question=question, asked=asked, gold=gold,
                                                              answer=answer.strip())}]
        try:
            args = Gate(self.client, None).call_tool("judge", msgs, JUDGE_TOOL)
        except LLMBadReply as exc:
            return Verdict("WRONG", "judge reply unusable", error=str(exc))
        return Verdict(args.label, (args.reason or "").strip())


def j_score(correct: int, total: int) -> dict:
    """J in percent with its 95% Wilson interval."""
    lo, hi = wilson_interval(correct, total)
    return {"n": total, "correct": correct, "J": 100.0 * correct / total if total else 0.0,
            "ci_low": 100.0 * lo, "ci_high": 100.0 * hi}


# -- CLI ---------------------------------------------------------------------------------


def _read_cases(path: Path) -> list[dict]:
    cases = []
    with path.open(encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path.name} line {no}: not JSON ({exc})") from exc
            if not isinstance(case, dict) or not all(k in case for k in ("question", "gold", "answer")):
                raise ValueError(f"{path.name} line {no}: needs question, gold and answer")
            cases.append(case)
    return cases


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m memoir_desktop.eval.judge",
                                description="Judge {question, gold, answer} JSONL lines; print J with a 95% CI.")
    p.add_argument("cases", type=Path, help="JSONL file, one {question, gold, answer[, type, asked_at]} per line")
    p.add_argument("--judge-model", help="model for the judge (default: MEMOIR_LLM_MODEL)")
    p.add_argument("--out", type=Path, help="write the labelled cases here as JSONL")
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = p.parse_args(argv)
    prog = "judge"
    try:
        cases = _read_cases(args.cases)
    except (OSError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    msg = require_llm(prog)
    if msg:
        print(msg, file=sys.stderr)
        return EXIT_USAGE
    judge = Judge(model=args.judge_model)
    labelled = []
    try:
        for case in cases:
            v = judge.judge(str(case["question"]), str(case["gold"]), str(case["answer"] or ""),
                            case.get("asked_at"))
            labelled.append({**case, "label": v.label, "reason": v.reason, "judge_error": v.error})
    except LLMUnavailable as exc:
        print(f"{prog}: LLM unavailable after {len(labelled)} of {len(cases)} cases: {exc}", file=sys.stderr)
        if not labelled:
            return EXIT_ERROR
    by_type: dict[str, list[bool]] = defaultdict(list)
    for c in labelled:
        by_type[str(c.get("type") or "all")].append(c["label"] == "CORRECT")
    overall = j_score(sum(c["label"] == "CORRECT" for c in labelled), len(labelled))
    scores = {"overall": overall, "by_type": {t: j_score(sum(v), len(v)) for t, v in sorted(by_type.items())},
              "judge_model": judge.model, "judge_calls": judge.calls,
              "judge_errors": sum(1 for c in labelled if c["judge_error"])}
    if args.out:
        args.out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in labelled), "utf-8")
    if args.json:
        print(json.dumps(scores, ensure_ascii=False, indent=1))
    else:
        print(f"J = {overall['J']:.2f}%  (95% CI {overall['ci_low']:.1f}-{overall['ci_high']:.1f}, "
              f"{overall['correct']}/{overall['n']} correct, judge {judge.model})")
        if len(by_type) > 1 or "all" not in by_type:
            for t, s in scores["by_type"].items():
                print(f"  {t:<16} J = {s['J']:6.2f}%  ({s['ci_low']:.1f}-{s['ci_high']:.1f}, n={s['n']})")
    return EXIT_OK if len(labelled) == len(cases) else EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
