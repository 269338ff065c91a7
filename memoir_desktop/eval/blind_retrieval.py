"""The blind retrieval set (tests/data/blind/DATE/{ko,en}.json), through the product's own reads.

    python -m memoir_desktop.eval.blind_retrieval [--data tests/data/blind/2026-12-06] [--json OUT]

The set was written by someone who never read the search code, and is frozen: it is evidence
only while nobody tunes on it. So this harness prints aggregates alone — never a question, a
memory or a per-question rank — and nothing in the project should be fitted against it.

Each journal is loaded into one real, encrypted Memoir store (a user id per journal) as
`eval/ko_retrieval.py` does it: `Memoir.add(infer=False)` per recorded day, recorded at 21:00 of
that day; no memory is invalidated. Each question is asked at its `asked` date (23:30, so a memory
written that evening is already there) through three reads, reported side by side:

- `api`: `Memoir.search(limit=10)`, the mem0-compatible call (and the MCP server's);
- `context`: the companion's context (`Memoir.companion.context_for`: the router, the cold path's
  facts, the token budget), the memories in the order the model reads them;
- `field`: the search field (`Memoir.find`, listing=True: the relevance floor may list fewer).

Per language × kind: hit@1, hit@5, hit@10 (any relevant memory), all@10 (every relevant one:
the multi-hop measure), MRR@10; and
- present questions, "newest first": a relevant (newest) memory ranks first and above every
  superseded one;
- past questions, "old found": a relevant (earlier) memory is in the top 3 and above every
  superseded (newer) one.
A superseded memory that is not listed counts as ranked below everything.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from memoir_desktop.eval.embed_cache import cached_embeddings
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.ko_retrieval import _load
from memoir_desktop.eval.locomo_retrieval import _quiet_environment, _reproducible_ids
from memoir_desktop.eval.output import show

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "blind" / "2026-12-06"
PATHS = ("api", "context", "field")
KINDS = ("present", "past", "paraphrase", "multihop")


def _asked(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(hour=23, minute=30)


def _ranked(mem, path: str, user: str, text: str, now: datetime) -> list[str]:
    if path == "api":
        return [h["id"] for h in mem.search(text, user_id=user, limit=10, now=now)["results"]]
    if path == "field":
        return [h["id"] for h in mem.search_field.find(text, user_id=user, limit=10, now=now)["memories"]]
    ctx = mem.companion.context_for(text, user_id=user, now=now)
    return [m["id"] for m in ctx.memories]


def score(hits: list[str], relevant: set[str], superseded: set[str], kind: str) -> dict[str, float]:
    """One question's measures (see the module's docstring)."""
    pos = {h: i + 1 for i, h in enumerate(hits)}
    ranks = sorted(pos[r] for r in relevant if r in pos)
    best = ranks[0] if ranks else None
    worst_old = min((pos[s] for s in superseded if s in pos), default=None)
    above = best is not None and (worst_old is None or best < worst_old)
    out = {"hit@1": float(best == 1), "hit@5": float(bool(best and best <= 5)),
           "hit@10": float(bool(best and best <= 10)),
           "all@10": float(len(ranks) == len(relevant)), "mrr": 1.0 / best if best else 0.0}
    if kind == "present":
        out["newest first"] = float(best == 1 and above)
    elif kind == "past":
        out["old found"] = float(bool(best and best <= 3) and above)
    return out


def journals(data_dir: Path) -> Iterator[tuple[str, dict]]:
    """(language, journal) for each journal of a blind set's ko.json and en.json, Korean first."""
    for lang in ("ko", "en"):
        f = data_dir / f"{lang}.json"
        if f.exists():
            for j in json.loads(f.read_text("utf-8"))["journals"]:
                yield lang, j


def run(data_dir: Path) -> dict:
    from memoir_desktop.core import Memoir

    _quiet_environment()
    throwaway_passphrase()  # the temporary journal is encrypted like any new one
    rows: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    with tempfile.TemporaryDirectory(prefix="memoir-blind-") as tmp, _reproducible_ids(), cached_embeddings(), \
            Memoir.open(Path(tmp) / "home", reconcile=False) as mem:
        embedder = mem.models.embedder.name
        for _lang, j in journals(data_dir):
            print(f"blind_retrieval: {j['id']}", file=sys.stderr, flush=True)
            ids = _load(mem, j["id"], j["memories"])
            for q in j["questions"]:
                rel = {ids[r] for r in q["relevant"]}
                old = {ids[s] for s in q.get("superseded") or []}
                for path in PATHS:
                    m = score(_ranked(mem, path, j["id"], q["text"], _asked(q["asked"])), rel, old, q["kind"])
                    for key in (f"{j['lang']} {q['kind']}", f"{j['lang']} all", f"all {q['kind']}", "all all"):
                        rows[path][key].append(m)
    return {"data": str(data_dir.name), "embedder": embedder,
            "paths": {p: {k: _mean(v) for k, v in by.items()} for p, by in rows.items()}}


def _mean(ms: list[dict]) -> dict:
    keys = sorted({k for m in ms for k in m})
    return {"n": len(ms), **{k: 100.0 * sum(m[k] for m in ms if k in m) / max(1, sum(k in m for m in ms))
                             if k != "mrr" else sum(m[k] for m in ms) / len(ms) for k in keys}}


def _order(key: str) -> tuple:
    lang, kind = key.split(" ")
    return (("ko", "en", "all").index(lang), (*KINDS, "all").index(kind))


def render(r: dict) -> str:
    lines = [f"# Blind retrieval set {r['data']} (embedder {r['embedder']})", ""]
    for path in PATHS:
        if path not in r["paths"]:
            continue
        lines += [f"## {path}", "",
                  "| lang kind | n | hit@1 | hit@5 | hit@10 | all@10 | MRR@10 | newest first | old found |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for key, v in sorted(r["paths"][path].items(), key=lambda kv: _order(kv[0])):
            nf = f"{v['newest first']:.1f}" if "newest first" in v else "—"
            of = f"{v['old found']:.1f}" if "old found" in v else "—"
            lines.append(f"| {key} | {v['n']} | {v['hit@1']:.1f} | {v['hit@5']:.1f} | {v['hit@10']:.1f} | "
                         f"{v['all@10']:.1f} | {v['mrr']:.3f} | {nf} | {of} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(DEFAULT_DATA))
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    if not (Path(a.data) / "ko.json").exists():
        print(f"blind_retrieval: no blind set in {a.data}", file=sys.stderr)
        return 2
    r = run(Path(a.data))
    return show(r, render(r), a.json)


if __name__ == "__main__":
    raise SystemExit(main())
