"""End-to-end evaluation: journal the scenario sessions, ask the questions through `chat`, judge.

    python -m memoir_desktop.eval.run_eval [--scenario FILE ...] [--runs 3] [--questions N]
        [--no-graph] [--full-context] [--model M] [--judge-model M] [--out DIR] [--resume DIR]

Per run, every scenario goes into ONE temporary home (tempfile; never the user's data) under its
own user_id: all scenarios are journaled first, one `journal()` call per message stamped with the
session date, each followed by `process_jobs()` the way the app's background writer would run.
Then each question is asked with `chat(question, user_id=, timestamp=asked_at)` — the app's own
read path — and judged. Every memory `chat` put in the context is checked to belong to the
asking user (isolation between users sharing a home).

The question's `chat` exchange is removed again afterwards (its two entries and its queued
memorize job), so questions stay independent and the answers never become memories.

`--full-context` is the paper's baseline: no memory writes; the whole journal (every message with
its date) goes into the answer prompt instead of memories.

Results are appended to DIR/results.jsonl as each question finishes; `--resume DIR` picks up an
interrupted run (with the settings saved in DIR/config.json) and skips the finished questions.
DIR/report.md and DIR/report.json are written at the end (and on interruption, marked partial).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy import func
from sqlmodel import Session, select

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm import LLMBadReply, LLMUnavailable, prompts
from memoir_desktop.core.llm.tokens import count_tokens
from memoir_desktop.core.script import language_of
from memoir_desktop.core.storage.models import Entry, Metric
from memoir_desktop.core.temporal import WEEKDAY_NAMES
from memoir_desktop.eval import report
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.judge import Judge, llm_settings, require_llm
from memoir_desktop.eval.progress import Progress
from memoir_desktop.eval.stats import bleu1, token_f1

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"
SCENARIO_TYPES = ["single-hop", "temporal", "multi-hop", "preference"]
LLM_STAGES_EXCLUDED = ("search", "embedding")
WEEKDAYS = WEEKDAY_NAMES

FULL_CONTEXT_HEADER = "The user's complete journal, oldest first (every entry with its date):"

log = logging.getLogger(__name__)


# -- what gets evaluated ---------------------------------------------------------------------


@dataclass
class Question:
    qid: str
    type: str
    question: str
    gold: str
    asked_at: datetime


@dataclass
class Unit:
    """One scenario (or one LoCoMo conversation): its own user_id, sessions and questions."""

    unit_id: str
    user_id: str
    sessions: list[tuple[datetime, list[str]]]
    questions: list[Question]
    info: dict = field(default_factory=dict)

    @property
    def messages(self) -> int:
        return sum(len(m) for _, m in self.sessions)


def take_balanced(questions: list, n: int | None, key: Callable = lambda q: q.type) -> list:
    """The first n questions, round-robin over types (file order within a type)."""
    if n is None or n >= len(questions):
        return list(questions)
    buckets: dict[str, list] = {}
    for q in questions:
        buckets.setdefault(key(q), []).append(q)
    picked: list = []
    while len(picked) < n:
        for b in buckets.values():
            if b and len(picked) < n:
                picked.append(b.pop(0))
    order = {id(q): i for i, q in enumerate(questions)}
    return sorted(picked, key=lambda q: order[id(q)])


def load_scenario(path: Path, max_questions: int | None = None) -> Unit:
    data = json.loads(Path(path).read_text("utf-8"))
    sessions = [(datetime.fromisoformat(s["date"]), [m for m in s["messages"] if m.strip()])
                for s in data["sessions"]]
    qs = [Question(q["id"], q["type"], q["question"], str(q["answer"]), datetime.fromisoformat(q["asked_at"]))
          for q in data["questions"]]
    return Unit(unit_id=data["id"], user_id=data.get("user_id") or data["id"], sessions=sessions,
                questions=take_balanced(qs, max_questions))


def default_scenarios() -> list[Path]:
    return sorted(SCENARIO_DIR.glob("*.json"))


# -- the run --------------------------------------------------------------------------------


class RunAborted(RuntimeError):
    """The LLM became unreachable: stop, keep what finished, tell how to resume."""


@dataclass
class Options:
    mode: str = "memory"  # memory | full-context
    runs: int = 1
    graph_enabled: bool = True
    model: str | None = None
    judge_model: str | None = None
    progress: bool = True


def _endpoint(base_url: str) -> str:
    if not base_url:
        return "OpenAI default"
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _metric_mark(mem: Memoir) -> int:
    mem.metrics.flush()
    with Session(mem.engine) as s:
        return s.exec(select(func.max(Metric.id))).one() or 0


def _metrics_since(mem: Memoir, mark: int) -> list[Metric]:
    mem.metrics.flush()
    with Session(mem.engine) as s:
        return list(s.exec(select(Metric).where(Metric.id > mark).order_by(Metric.id)))


def transcript(unit: Unit) -> str:
    lines = []
    for when, messages in unit.sessions:
        lines.append(f"[{when:%Y-%m-%d} ({WEEKDAYS[when.weekday()]}) {when:%H:%M}]")
        lines += [f"- {m}" for m in messages]
    return "\n".join(lines)


def ingest(mem: Memoir, unit: Unit, bar: Progress) -> dict:
    """Journal every message with its session date and run the jobs after each one."""
    start = time.perf_counter()
    mark = _metric_mark(mem)
    done = failed = 0
    failures: list[str] = []
    for when, messages in unit.sessions:
        for text in messages:
            mem.journal.write(text, user_id=unit.user_id, timestamp=when)
            for r in mem.jobs.process():
                if r["state"] == "done":
                    done += 1
                elif r["state"] == "pending":
                    raise RunAborted(f"LLM unavailable while journaling {unit.unit_id}: {r.get('error')}")
                else:
                    failed += 1
                    failures.append(f"{unit.unit_id} job {r['id']} ({r['kind']}): {r.get('error')}")
            bar.update(1, note=unit.unit_id)
    rows = [m for m in _metrics_since(mem, mark) if m.stage not in LLM_STAGES_EXCLUDED]
    seconds = time.perf_counter() - start
    # One untimed search builds the user's lexical index, as the running app would have done
    # long before a question: question latencies then measure the warm path.
    t0 = time.perf_counter()
    mem.search("warm-up", user_id=unit.user_id)
    return {"unit": unit.unit_id, "messages": unit.messages, "jobs_done": done, "jobs_failed": failed,
            "failures": failures, "memories": len(mem.get_all(user_id=unit.user_id)["results"]),
            "llm_calls": len(rows), "tokens": sum(m.prompt_tokens + m.completion_tokens for m in rows),
            "seconds": seconds, "warmup_s": time.perf_counter() - t0}


def _kind(item: dict) -> str:
    if "triplet" in item:
        return "relation"
    return item.get("kind") or "memory"


def _owner(mem: Memoir, item: dict) -> str | None:
    """The user an item in the context belongs to: its user_id, else looked up by its row."""
    if item.get("user_id"):
        return item["user_id"]
    try:
        with Session(mem.engine) as s:
            if "triplet" in item:
                from memoir_desktop.core.storage.graph_store import GraphEdge

                row = s.get(GraphEdge, item.get("id"))
                return row.user_id if row else None
            if item.get("entry_id"):
                row = s.get(Entry, item["entry_id"])
                return row.user_id if row else None
    except Exception:  # an unknown item shape is reported as unverified, not fatal
        log.debug("cannot find the owner of %r", item.get("id"))
    return None


def _memory_view(m: dict, owner: str | None = None) -> dict:
    v = {"id": m.get("id"), "kind": _kind(m), "memory": m.get("memory") or m.get("triplet"),
         "created_at": m.get("created_at") or m.get("valid_from") or m.get("recorded_at"),
         "about": m.get("about"), "user_id": owner or m.get("user_id")}
    if m.get("score") is not None:
        v["score"] = round(float(m["score"]), 5)
    return v


def answer_from_memory(mem: Memoir, unit: Unit, q: Question) -> dict:
    mark = _metric_mark(mem)
    t0 = time.perf_counter()
    # remember=False: questions must not become memories or shape the next question's context.
    out = mem.companion.chat(q.question, user_id=unit.user_id, timestamp=q.asked_at, remember=False)
    chat_ms = (time.perf_counter() - t0) * 1000
    if out.get("error") and out["error"].startswith("LLM unavailable"):
        raise RunAborted(out["error"])
    rows = _metrics_since(mem, mark)
    memories = out.get("memories") or []
    owners = [_owner(mem, m) for m in memories]
    views = [_memory_view(m, o) for m, o in zip(memories, owners)]
    foreign = [v for v, o in zip(views, owners) if o is not None and o != unit.user_id]
    search = [m.ms for m in rows if m.stage == "search"]
    llm = [m for m in rows if m.stage not in LLM_STAGES_EXCLUDED]
    return {
        "answer": out.get("reply") or "", "error": out.get("error"),
        "memories": views,
        "route": out.get("route"),
        "context_tokens": out.get("context_tokens"),
        "search_ms": sum(search) if search else None,
        "answer_ms": sum(m.ms for m in rows if m.stage == "answer") or None,
        "chat_ms": chat_ms,
        "llm_calls": len(llm),
        "prompt_tokens": sum(m.prompt_tokens for m in llm),
        "completion_tokens": sum(m.completion_tokens for m in llm),
        "isolation_checked": sum(1 for o in owners if o is not None),
        "isolation_unverified": sum(1 for o in owners if o is None),
        "isolation_violations": len(foreign),
        "foreign_memories": foreign,
    }


def answer_from_full_context(mem: Memoir, unit: Unit, q: Question, text: str) -> dict:
    when = q.asked_at
    system = prompts.ANSWER_SYSTEM.format(today=when.date().isoformat(), weekday=WEEKDAYS[when.weekday()],
                                          language=prompts.LANGUAGE_NAMES[language_of(q.question)],
                                          context=f"{FULL_CONTEXT_HEADER}\n{text}")
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": q.question}]
    mark = _metric_mark(mem)
    t0 = time.perf_counter()
    reply, error = "", None
    try:
        reply = mem.llm.complete("answer", msgs, temperature=0.5)
    except LLMUnavailable as exc:
        raise RunAborted(f"LLM unavailable: {exc}") from exc
    except LLMBadReply as exc:
        error = f"LLM reply unusable: {exc}"
    chat_ms = (time.perf_counter() - t0) * 1000
    llm = [m for m in _metrics_since(mem, mark) if m.stage not in LLM_STAGES_EXCLUDED]
    return {
        "answer": reply, "error": error, "memories": [],
        "context_tokens": count_tokens(text),
        "search_ms": None,
        "answer_ms": sum(m.ms for m in llm if m.stage == "answer") or None,
        "chat_ms": chat_ms,
        "llm_calls": len(llm),
        "prompt_tokens": sum(m.prompt_tokens for m in llm),
        "completion_tokens": sum(m.completion_tokens for m in llm),
        "isolation_checked": 0, "isolation_violations": 0,
    }


def _append(path: Path, row: dict) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _repair_jsonl(path: Path) -> int:
    """Drop lines an interruption cut short, so appends start on a fresh line. Returns lines dropped."""
    if not path.exists():
        return 0
    raw = path.read_text("utf-8")
    good = []
    for line in raw.splitlines():
        try:
            if isinstance(json.loads(line), dict):
                good.append(line)
        except ValueError:
            pass
    text = "".join(line + "\n" for line in good)
    if text != raw:
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text(text, "utf-8")
        tmp.replace(path)
    return len(raw.splitlines()) - len(good)


def _done_keys(rows: list[dict]) -> set[tuple]:
    return {(int(r["run"]), r["unit"], r["qid"]) for r in rows if {"run", "unit", "qid"} <= r.keys()}


def evaluate(units: list[Unit], opts: Options, out_dir: Path, meta: dict, *, prog: str = "run_eval") -> int:
    """Run (or resume) the evaluation into out_dir; write the reports; return the exit code."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path, ingest_path = out_dir / "results.jsonl", out_dir / "ingest.jsonl"
    for path in (results_path, ingest_path):
        dropped = _repair_jsonl(path)
        if dropped:
            print(f"{prog}: dropped {dropped} unfinished line(s) from {path.name}", file=sys.stderr)
    done = _done_keys(report.load_jsonl(results_path))
    judge = Judge(model=opts.judge_model)
    st = llm_settings(opts.model)
    meta = {**meta, "mode": opts.mode, "runs": opts.runs, "graph_enabled": opts.graph_enabled,
            "llm_model": st.llm_model, "judge_model": judge.model, "embed_model": st.embed_model,
            "endpoint": _endpoint(st.llm_base_url), "started": meta.get("started") or _now(),
            "expected_questions": opts.runs * sum(len(u.questions) for u in units), "finished": None,
            "partial": None}
    if opts.mode == "full-context":
        meta["unit_context_tokens"] = {u.unit_id: count_tokens(transcript(u)) for u in units}
    _save_config(out_dir, meta)
    status, partial = EXIT_OK, None
    try:
        for run in range(1, opts.runs + 1):
            todo = [(u, [q for q in u.questions if (run, u.unit_id, q.qid) not in done]) for u in units]
            todo = [(u, qs) for u, qs in todo if qs]
            if not todo:
                continue
            _run_once(run, todo, opts, judge, results_path, ingest_path)
    except RunAborted as exc:
        status, partial = EXIT_ERROR, str(exc)
        print(f"{prog}: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        status, partial = EXIT_INTERRUPTED, "interrupted"
        print(f"\n{prog}: interrupted", file=sys.stderr)
    rows = report.load_jsonl(results_path)
    if partial:
        meta["partial"] = (f"{partial}; {len(rows)} of {meta['expected_questions']} questions finished. "
                           f"Resume with --resume {out_dir}")
        print(f"{prog}: {len(rows)} of {meta['expected_questions']} questions finished; "
              f"resume with --resume {out_dir}", file=sys.stderr)
    else:
        meta["finished"] = _now()
    meta["judge_calls_this_session"] = judge.calls
    _save_config(out_dir, meta)
    rep = report.build(rows, meta, report.load_jsonl(ingest_path))
    _jpath, mpath = report.write(out_dir, rep)
    ov = rep["overall"]
    print(f"J = {ov['J']:.2f}% (95% CI {ov['ci_low']:.1f}-{ov['ci_high']:.1f}, n={ov['n']})  "
          f"report: {mpath}", file=sys.stderr)
    for t, s in rep["by_type"].items():
        label = (meta.get("type_labels") or {}).get(t, t)
        print(f"  {label:<34} J = {s['J']:6.2f}%  ({s['ci_low']:.1f}-{s['ci_high']:.1f}, n={s['n']})",
              file=sys.stderr)
    if not rep["isolation"]["ok"]:
        print(f"{prog}: ISOLATION FAILED: {rep['isolation']['violations']} memories of another user "
              "were retrieved", file=sys.stderr)
        status = status or EXIT_ERROR
    return status


def _run_once(run: int, todo: list[tuple[Unit, list[Question]]], opts: Options, judge: Judge,
              results_path: Path, ingest_path: Path) -> None:
    overrides = {"graph_enabled": opts.graph_enabled}
    if opts.model:
        overrides["llm_model"] = opts.model
    tag = f"run {run}/{opts.runs}"
    throwaway_passphrase()  # the temporary journal is encrypted like any new one
    with tempfile.TemporaryDirectory(prefix="memoir-eval-") as tmp:
        mem = Memoir.open(Path(tmp) / "home", **overrides)
        try:
            if opts.mode == "memory":
                with Progress(sum(u.messages for u, _ in todo), f"{tag} journal",
                              enabled=opts.progress) as bar:
                    for unit, _ in todo:
                        _append(ingest_path, {"run": run, **ingest(mem, unit, bar)})
            texts = {u.unit_id: transcript(u) for u, _ in todo} if opts.mode == "full-context" else {}
            with Progress(sum(len(qs) for _, qs in todo), f"{tag} questions", enabled=opts.progress) as bar:
                for unit, qs in todo:
                    for q in qs:
                        if opts.mode == "memory":
                            res = answer_from_memory(mem, unit, q)
                        else:
                            res = answer_from_full_context(mem, unit, q, texts[unit.unit_id])
                        try:
                            v = judge.judge(q.question, q.gold, res["answer"], q.asked_at.isoformat())
                        except LLMUnavailable as exc:
                            raise RunAborted(f"judge LLM unavailable: {exc}") from exc
                        row = {"run": run, "unit": unit.unit_id, "user_id": unit.user_id, "qid": q.qid,
                               "type": q.type, "question": q.question, "gold": q.gold,
                               "asked_at": q.asked_at.isoformat(), "mode": opts.mode, **res,
                               "label": v.label, "reason": v.reason, "judge_error": v.error,
                               "f1": token_f1(res["answer"], q.gold), "bleu1": bleu1(res["answer"], q.gold)}
                        _append(results_path, row)
                        bar.update(1, note=f"{unit.unit_id} {q.qid} {v.label}")
        finally:
            mem.close()


def _now() -> str:
    return datetime.now().isoformat(timespec="seconds")


def _save_config(out_dir: Path, meta: dict, args: dict | None = None) -> None:
    path = out_dir / "config.json"
    data = {}
    if path.exists():
        try:
            data = json.loads(path.read_text("utf-8"))
        except ValueError:
            data = {}
    data["meta"] = meta
    if args is not None:
        data["args"] = args
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), "utf-8")


# -- CLI helpers shared with locomo.py --------------------------------------------------------------


def default_out_dir() -> Path:
    base = Path.cwd() / "eval-results" / datetime.now().strftime("%Y%m%d-%H%M%S")
    out, i = base, 1
    while out.exists():
        i += 1
        out = base.with_name(f"{base.name}-{i}")
    return out


def resolve_out(args, resumable: tuple[str, ...], prog: str) -> tuple[Path, dict] | int:
    """Pick the output dir; on --resume, restore the saved arguments. Returns (dir, meta) or an exit code."""
    if args.resume:
        out = Path(args.resume)
        try:
            saved = json.loads((out / "config.json").read_text("utf-8"))
        except (OSError, ValueError) as exc:
            print(f"{prog}: cannot resume from {out}: no readable config.json ({exc.__class__.__name__})",
                  file=sys.stderr)
            return EXIT_USAGE
        for key in resumable:
            if key in saved.get("args", {}):
                setattr(args, key, saved["args"][key])
        return out, saved.get("meta", {})
    out = Path(args.out) if args.out else default_out_dir()
    out.mkdir(parents=True, exist_ok=True)
    _save_config(out, {}, {k: getattr(args, k) for k in resumable})
    return out, {}


def add_common_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=int, default=1, help="repeat the whole run N times (default 1)")
    p.add_argument("--no-graph", action="store_true", help="set graph_enabled=False")
    p.add_argument("--full-context", action="store_true",
                   help="baseline: answer from the whole conversation instead of memories (no memory writes)")
    p.add_argument("--model", help="answer model (default: MEMOIR_LLM_MODEL or the app default)")
    p.add_argument("--judge-model", help="judge model (default: the answer model)")
    p.add_argument("--out", help="output directory (default: eval-results/<timestamp>/)")
    p.add_argument("--resume", metavar="DIR", help="continue an interrupted run in DIR, skipping finished questions")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


COMMON_RESUMABLE = ("runs", "no_graph", "full_context", "model", "judge_model")


def options_from(args) -> Options:
    return Options(mode="full-context" if args.full_context else "memory", runs=max(1, args.runs),
                   graph_enabled=not args.no_graph, model=args.model, judge_model=args.judge_model,
                   progress=not args.no_progress)


def main(argv: list[str] | None = None) -> int:
    prog = "run_eval"
    p = argparse.ArgumentParser(prog="python -m memoir_desktop.eval.run_eval",
                                description="Evaluate memoir's long-term memory on the Korean scenarios.")
    p.add_argument("--scenario", action="append", help="scenario JSON file (repeatable; default: all)")
    p.add_argument("--questions", type=int, help="at most N questions per scenario (balanced over types)")
    add_common_args(p)
    args = p.parse_args(argv)
    msg = require_llm(prog)
    if msg:
        print(msg, file=sys.stderr)
        return EXIT_USAGE
    if args.scenario:
        args.scenario = [str(Path(s).resolve()) for s in args.scenario]
    resolved = resolve_out(args, ("scenario", "questions") + COMMON_RESUMABLE, prog)
    if isinstance(resolved, int):
        return resolved
    out, meta = resolved
    paths = [Path(s) for s in args.scenario] if args.scenario else default_scenarios()
    try:
        units = [load_scenario(path, args.questions) for path in paths]
    except (OSError, ValueError, KeyError) as exc:
        print(f"{prog}: cannot read scenario: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not units:
        print(f"{prog}: no scenarios found", file=sys.stderr)
        return EXIT_USAGE
    meta.update(title="Korean scenarios", unit_name="scenario", type_head="question type",
                type_order=SCENARIO_TYPES,
                reference_note="The paper's numbers are on LoCoMo (English conversations); the Korean "
                               "scenarios are a different, smaller test: compare trends, not digits.")
    logging.basicConfig(level=logging.WARNING)
    return evaluate(units, options_from(args), out, meta, prog=prog)


if __name__ == "__main__":
    sys.exit(main())
