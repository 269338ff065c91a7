"""Aggregate per-question results into the JSON and Markdown reports.

Input rows are the lines of `results.jsonl` (one judged question each, see run_eval.py).
J is the percentage judged CORRECT. With one run its 95% interval is Wilson's; with several
runs J is the mean of the per-run J values with a normal interval over runs (`mean_ci`).

    python -m memoir_desktop.eval.report DIR   # re-render DIR/report.{md,json} from DIR/results.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from memoir_desktop.eval.judge import j_score
from memoir_desktop.eval.stats import mean_ci, percentile

# Mem0 paper (arXiv 2504.19413), LoCoMo categories 1-4, gpt-4o-mini, overall J.
PAPER_J = [
    ("full-context", 72.90), ("Mem0^g (graph)", 68.44), ("Mem0", 66.88), ("Zep", 65.99),
    ("best RAG", 60.97), ("LangMem", 58.10), ("OpenAI memory", 52.90), ("A-Mem", 48.38),
]
PAPER_LATENCY_S = {"search_p50": 0.148, "search_p95": 0.200, "total_p50": 0.708, "total_p95": 1.440}
PAPER_TOKENS = {"mem0_memory_tokens_per_query": 1764, "full_context_tokens_per_query": 26031}

MAX_MEMORIES_SHOWN = 15


def load_jsonl(path: Path) -> list[dict]:
    rows = []
    if not path.exists():
        return rows
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue  # a line cut short by an interruption
    return rows


def _j(rows: list[dict]) -> dict:
    """J for a group of rows: Wilson for one run, mean over runs with mean_ci for several."""
    runs: dict[int, list[bool]] = defaultdict(list)
    for r in rows:
        runs[int(r.get("run", 1))].append(r["label"] == "CORRECT")
    correct = sum(sum(v) for v in runs.values())
    total = sum(len(v) for v in runs.values())
    if len(runs) <= 1:
        out = j_score(correct, total)
        out.update(runs=len(runs), ci="wilson")
        return out
    per_run = [100.0 * sum(v) / len(v) for _, v in sorted(runs.items()) if v]
    mean, lo, hi = mean_ci(per_run)
    return {"n": total, "correct": correct, "J": mean, "ci_low": max(0.0, lo), "ci_high": min(100.0, hi),
            "runs": len(runs), "ci": "mean over runs", "per_run": per_run}


def _mean(values) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _lat(values) -> dict | None:
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return None
    return {"n": len(vals), "p50_s": percentile(vals, 50) / 1000, "p95_s": percentile(vals, 95) / 1000,
            "mean_s": sum(vals) / len(vals) / 1000}


def _group(rows: list[dict], key: str, order: list[str] | None = None) -> dict:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[str(r.get(key))].append(r)
    keys = [k for k in (order or []) if k in groups] + sorted(k for k in groups if k not in (order or []))
    out = {}
    for k in keys:
        g = groups[k]
        out[k] = {**_j(g), "f1": _mean(r.get("f1") for r in g), "bleu1": _mean(r.get("bleu1") for r in g)}
    return out


def _ingest_summary(ingest: list[dict]) -> dict:
    # The latest row per (run, unit) wins: a resumed run re-ingests what it needs.
    latest: dict[tuple, dict] = {}
    for row in ingest:
        latest[(row.get("run"), row.get("unit"))] = row
    rows = list(latest.values())
    if not rows:
        return {}
    jobs = sum(r.get("jobs_done", 0) for r in rows)
    calls = sum(r.get("llm_calls", 0) for r in rows)
    tokens = sum(r.get("tokens", 0) for r in rows)
    return {
        "units": len(rows),
        "messages": sum(r.get("messages", 0) for r in rows),
        "jobs_done": jobs,
        "jobs_failed": sum(r.get("jobs_failed", 0) for r in rows),
        "memories": sum(r.get("memories", 0) for r in rows),
        "llm_calls": calls,
        "tokens": tokens,
        "llm_calls_per_message": calls / max(1, sum(r.get("messages", 0) for r in rows)),
        "tokens_per_message": tokens / max(1, sum(r.get("messages", 0) for r in rows)),
        "seconds": sum(r.get("seconds", 0.0) for r in rows),
        "warmup_s": sum(r.get("warmup_s", 0.0) for r in rows),
        "runs": len({r.get("run") for r in rows}),
        "failures": [f for r in rows for f in r.get("failures", [])][:20],
    }


def build(rows: list[dict], meta: dict, ingest: list[dict] | None = None) -> dict:
    """The JSON report."""
    type_order = meta.get("type_order") or []
    wrong = []
    for r in rows:
        if r["label"] == "CORRECT":
            continue
        wrong.append({k: r.get(k) for k in ("run", "unit", "qid", "type", "question", "gold", "answer",
                                             "asked_at", "reason", "error", "judge_error")}
                     | {"memories": (r.get("memories") or [])[:MAX_MEMORIES_SHOWN]})
    violations = sum(r.get("isolation_violations", 0) for r in rows)
    return {
        "meta": meta,
        "overall": {**_j(rows), "f1": _mean(r.get("f1") for r in rows),
                    "bleu1": _mean(r.get("bleu1") for r in rows)},
        "by_type": _group(rows, "type", type_order),
        "by_unit": _group(rows, "unit"),
        "latency": {
            "search": _lat(r.get("search_ms") for r in rows),
            "chat_total": _lat(r.get("chat_ms") for r in rows),
            "answer_llm": _lat(r.get("answer_ms") for r in rows),
        },
        "per_question": {
            "llm_calls": _mean(r.get("llm_calls") for r in rows),
            "prompt_tokens": _mean(r.get("prompt_tokens") for r in rows),
            "completion_tokens": _mean(r.get("completion_tokens") for r in rows),
            "tokens": _mean((r.get("prompt_tokens") or 0) + (r.get("completion_tokens") or 0) for r in rows),
            "context_tokens": _mean(r.get("context_tokens") for r in rows),
            "memories_retrieved": _mean(len(r.get("memories") or []) for r in rows),
        },
        "errors": {
            "answer_errors": sum(1 for r in rows if r.get("error")),
            "judge_errors": sum(1 for r in rows if r.get("judge_error")),
        },
        "isolation": {
            "checked_memories": sum(r.get("isolation_checked", 0) for r in rows),
            "unverified": sum(r.get("isolation_unverified", 0) for r in rows),
            "violations": violations,
            "ok": violations == 0,
        },
        "ingest": _ingest_summary(ingest or []),
        "wrong": wrong,
        "reference": {"paper_J": dict(PAPER_J), "paper_latency_s": PAPER_LATENCY_S, "paper_tokens": PAPER_TOKENS},
    }


# -- Markdown ----------------------------------------------------------------------------


def _pct(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def _ci(s: dict) -> str:
    return f"{s['ci_low']:.1f}–{s['ci_high']:.1f}"


def _sec(d: dict | None, key: str) -> str:
    return "—" if not d else f"{d[key]:.3f}"


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _score_table(title: str, groups: dict, labels: dict | None = None, label_head: str = "type") -> list[str]:
    out = [f"## {title}", "", f"| {label_head} | n | J (%) | 95% CI | F1 | BLEU-1 |", "|---|---:|---:|---|---:|---:|"]
    for k, s in groups.items():
        f1 = "—" if s["f1"] is None else f"{s['f1']:.3f}"
        b1 = "—" if s["bleu1"] is None else f"{s['bleu1']:.3f}"
        out.append(f"| {_cell((labels or {}).get(k, k))} | {s['n']} | {s['J']:.2f} | {_ci(s)} | {f1} | {b1} |")
    return out + [""]


# Long on purpose: the report read top to bottom (an evaluation tool, not the app).
def markdown(rep: dict) -> str:
    meta = rep["meta"]
    ov = rep["overall"]
    labels = meta.get("type_labels") or {}
    runs = ov.get("runs", 1)
    ci_note = ("Wilson 95% interval" if runs <= 1
               else f"mean of {runs} runs, normal 95% interval over runs (mean_ci)")
    lines = [
        f"# memoir eval — {meta.get('title', 'results')}",
        "",
        f"- mode: **{meta.get('mode')}**  (graph_enabled={meta.get('graph_enabled')})",
        (f"- answer model: `{meta.get('llm_model')}` · judge model: `{meta.get('judge_model')}` · "
        f"embedder: `{meta.get('embed_model')}` · endpoint: {meta.get('endpoint')}"),
        (f"- started {meta.get('started')} · finished {meta.get('finished') or '(not finished)'} · "
        f"runs: {meta.get('runs')}"),
        f"- questions judged: {ov['n']}" + (f" of {meta['expected_questions']}"
                                            if meta.get("expected_questions") else ""),
        "",
        f"**Overall J = {ov['J']:.2f}%** (95% CI {_ci(ov)}; {ci_note}).",
        "",
    ]
    if meta.get("partial"):
        lines += [f"> Partial results: {meta['partial']}", ""]
    head = meta.get("type_head", "question type")
    lines += _score_table(f"J by {head}", rep["by_type"], labels, head)
    lines += _score_table(f"J by {meta.get('unit_name', 'scenario')}", rep["by_unit"],
                          label_head=meta.get("unit_name", "scenario"))
    lat = rep["latency"]
    lines += [
        "## Latency (seconds)", "",
        "| stage | p50 | p95 | mean | paper Mem0 p50 / p95 |", "|---|---:|---:|---:|---|",
        (f"| search | {_sec(lat['search'], 'p50_s')} | {_sec(lat['search'], 'p95_s')} | "
        f"{_sec(lat['search'], 'mean_s')} | 0.148 / 0.200 |"),
        (f"| total chat (search + answer) | {_sec(lat['chat_total'], 'p50_s')} | "
        f"{_sec(lat['chat_total'], 'p95_s')} | {_sec(lat['chat_total'], 'mean_s')} | 0.708 / 1.440 |"),
        (f"| answer LLM call | {_sec(lat['answer_llm'], 'p50_s')} | {_sec(lat['answer_llm'], 'p95_s')} | "
        f"{_sec(lat['answer_llm'], 'mean_s')} | |"),
        "",
    ]
    pq = rep["per_question"]

    def num(x, fmt="{:.1f}"):
        return "—" if x is None else fmt.format(x)

    lines += [
        "## Cost per question", "",
        ("| LLM calls | prompt tokens | completion tokens | total tokens | context tokens (memory / transcript) "
        "| items in context |"),
        "|---:|---:|---:|---:|---:|---:|",
        (f"| {num(pq['llm_calls'], '{:.2f}')} | {num(pq['prompt_tokens'])} | {num(pq['completion_tokens'])} | "
        f"{num(pq['tokens'])} | {num(pq['context_tokens'])} | {num(pq['memories_retrieved'])} |"),
        "",
        "Paper: Mem0 1,764 memory tokens per query; full-context 26,031. The judge's calls are not counted.",
        "",
    ]
    ing = rep.get("ingest") or {}
    if ing:
        lines += [
            "## Ingestion (memory writes)", "",
            f"{ing['messages']} messages journaled, {ing['jobs_done']} jobs done, {ing['jobs_failed']} failed, "
            f"{ing['memories']} active memories; {ing['llm_calls_per_message']:.2f} LLM calls and "
            f"{ing['tokens_per_message']:.0f} tokens per message; {ing['seconds']:.1f} s"
            + (f" (totals over {ing['runs']} runs)" if ing.get("runs", 1) > 1 else "")
            + f". First search per user (index warm-up, not in the latencies): {ing.get('warmup_s', 0):.2f} s.",
            "",
        ]
        for f in ing.get("failures", []):
            lines.append(f"- failed job: {_cell(f)}")
        if ing.get("failures"):
            lines.append("")
    iso = rep["isolation"]
    lines += [
        "## User isolation", "",
        (f"OK: {iso['checked_memories']} items in context checked, none belonged to another user."
         if iso["ok"] else f"**FAILED: {iso['violations']} items in context belonged to another user.**"),
        "",
    ]
    if iso.get("unverified"):
        lines += [f"{iso['unverified']} items had no recognisable owner and were not checked.", ""]
    err = rep["errors"]
    if err["answer_errors"] or err["judge_errors"]:
        lines += [(f"Answer errors: {err['answer_errors']} · judge errors: {err['judge_errors']} "
                  "(both counted as WRONG)."), ""]
    lines += ["## Reference: Mem0 paper (LoCoMo, categories 1–4, gpt-4o-mini)", "",
              "| system | J (%) |", "|---|---:|"]
    lines += [f"| {name} | {j:.2f} |" for name, j in PAPER_J]
    lines += ["", meta.get("reference_note", "The paper's numbers are on LoCoMo (English); they orient, "
                                             "they are not the same test."), ""]
    lines += [f"## Wrong answers ({len(rep['wrong'])})", ""]
    for w in rep["wrong"]:
        tl = labels.get(str(w.get("type")), w.get("type"))
        run = f", run {w['run']}" if runs > 1 else ""
        lines += [
            f"### {w.get('qid')} ({tl}, {w.get('unit')}{run})",
            f"- question: {_cell(w.get('question'))}" + (f" (asked {w['asked_at']})" if w.get("asked_at") else ""),
            f"- gold: {_cell(w.get('gold'))}",
            f"- answer: {_cell(w.get('answer')) or '(none)'}",
            f"- judge: {_cell(w.get('reason'))}" + (f" — error: {_cell(w['error'])}" if w.get("error") else ""),
        ]
        mems = w.get("memories") or []
        if mems:
            lines.append("- retrieved memories:")
            for m in mems:
                about = f", about {m['about'][0]}" if m.get("about") else ""
                kind = f" ({m['kind']})" if m.get("kind") not in (None, "memory") else ""
                lines.append(f"  - [{(m.get('created_at') or '')[:10]}{about}]{kind} {_cell(m.get('memory'))}")
        elif meta.get("mode") == "memory":
            lines.append("- retrieved memories: (none)")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write(out_dir: Path, rep: dict) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    jpath, mpath = out_dir / "report.json", out_dir / "report.md"
    jpath.write_text(json.dumps(rep, ensure_ascii=False, indent=1), "utf-8")
    mpath.write_text(markdown(rep), "utf-8")
    return jpath, mpath


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m memoir_desktop.eval.report DIR", file=sys.stderr)
        return 2
    d = Path(argv[0])
    try:
        meta = json.loads((d / "config.json").read_text("utf-8")).get("meta", {})
    except (OSError, ValueError):
        meta = {}
    rep = build(load_jsonl(d / "results.jsonl"), meta, load_jsonl(d / "ingest.jsonl"))
    _, mpath = write(d, rep)
    print(mpath)
    return 0


if __name__ == "__main__":
    sys.exit(main())
