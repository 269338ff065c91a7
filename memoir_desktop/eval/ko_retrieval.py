"""Korean retrieval dev sets: paraphrase questions and recency chains, through `Memoir.search`.

    python -m memoir_desktop.eval.ko_retrieval [--data tests/data/retrieval] [--split fit|check|all]
           [--expansion-weight W] [--json OUT]

- Paraphrase (ko_paraphrase.json): questions that share no content word with their memory; hit@1,
  hit@5, hit@10 and MRR@10, per kind and over all, for the split asked.
- Recency (recency_chains.json): each chain's versions are all active (nothing invalidated them);
  a present-tense question must rank the newest version first: newest@1, and newest-above-older
  (the share of older versions ranked below the newest), Korean and English.
`--expansion-weight` sets how much a synonym of the query's words counts (search/query.py;
0 turns the synonym table off), to measure it. Everything runs in a temporary home with memory ids from a seeded generator (reproducible).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from memoir_desktop.eval.embed_cache import cached_embeddings
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.locomo_retrieval import _quiet_environment, _reproducible_ids
from memoir_desktop.eval.output import show

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "retrieval"


def _load(mem, user: str, memories: list[dict]) -> dict[str, str]:
    """Our ids -> memory ids; each memory recorded on its own date."""
    out = {}
    by_day: dict[str, list[dict]] = defaultdict(list)
    for m in memories:
        by_day[m["recorded"]].append(m)
    for day, ms in sorted(by_day.items()):
        res = mem.add([m["text"] for m in ms], infer=False, user_id=user,
                      timestamp=datetime.fromisoformat(day).replace(hour=21))["results"]
        out.update((m["id"], r["id"]) for m, r in zip(ms, res, strict=True))
    return out


def paraphrase(mem, data: dict, split: str) -> dict:
    ids = _load(mem, "para", data["memories"])
    rows: dict[str, list[tuple[int | None]]] = defaultdict(list)
    for q in data["questions"]:
        if split != "all" and q["split"] != split:
            continue
        hits = [h["id"] for h in mem.search(q["question"], user_id="para", limit=10,
                                            now=datetime.fromisoformat(q["asked"]).replace(hour=12))["results"]]
        want = {ids[r] for r in q["relevant"]}
        rank = next((i + 1 for i, h in enumerate(hits) if h in want), None)
        rows[q["kind"]].append((rank,))
        rows["all"].append((rank,))
    return {kind: _hits([r for (r,) in rs]) for kind, rs in rows.items()}


def where_lost(mem, data: dict) -> dict:
    """For each paraphrase question, the first stage that loses its memory: not among the dense
    top 30, nor the lexical top 30 ("no candidate"), among them but not in the fused top 30
    ("fusion"), in the fused pool but ranked below 10 by search ("ranking"), or found in the top 10.
    Counts per kind (the ids were loaded by `paraphrase`, under the user "para")."""
    from memoir_desktop.core.search.first_stage import rankings
    from memoir_desktop.core.search.fusion import fuse

    ids = _load(mem, "para-lost", data["memories"])
    store, bm = mem.store, mem.store.bm25("para-lost")
    dense = lambda vec, depth: store.vectors.search_with_stats(store.searched_collection("para-lost"), vec, depth)  # noqa: E731
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for q in data["questions"]:
        now = datetime.fromisoformat(q["asked"]).replace(hour=12)
        query = mem.retriever.query(q["question"], now)
        want = {ids[r] for r in q["relevant"]}
        ranked = rankings(query, bm, dense, store.embedder, depth=30, listing=False, floor=None)
        in_dense = any(str(i) in want for i, _ in ranked.get("dense", []))
        in_lex = any(str(i) in want for i, _ in ranked.get("lexical", []))
        fused = [str(i) for i, _, _ in fuse(ranked)][:30]
        top = [h["id"] for h in mem.search(q["question"], user_id="para-lost", limit=10, now=now)["results"]]
        stage = ("found in top 10" if want & set(top) else "ranking (in the pool, below 10)"
                 if want & set(fused) else "fusion (a list had it, the pool not)" if in_dense or in_lex
                 else "no candidate (neither list's top 30)")
        for kind in (q["kind"], "all"):
            out[kind][stage] += 1
            out[kind]["dense top 30"] += in_dense
            out[kind]["lexical top 30"] += in_lex
    return {k: dict(v) for k, v in out.items()}


def _hits(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {"n": len(ranks), **{f"hit@{k}": 100.0 * sum(1 for r in ranks if r and r <= k) / n for k in (1, 5, 10)},
            "mrr@10": sum(1.0 / r for r in ranks if r) / n}


def recency(mem, data: dict) -> dict:
    all_memories = [m for c in data["chains"] for m in c["memories"]] + data["distractors"]
    ids = _load(mem, "chains", all_memories)
    out: dict[str, dict] = {}
    for lang in ("ko", "en", "all"):
        first, above, pairs, n = 0, 0, 0, 0
        for c in data["chains"]:
            if lang != "all" and c["lang"] != lang:
                continue
            newest = ids[c["newest"]]
            older = {ids[m["id"]] for m in c["memories"] if m["id"] != c["newest"]}
            for q in c["questions"]:
                hits = [h["id"] for h in mem.search(q["question"], user_id="chains", limit=10,
                                                    now=datetime.fromisoformat(q["asked"]).replace(hour=12))["results"]]
                n += 1
                first += bool(hits) and hits[0] == newest
                pos = {h: i for i, h in enumerate(hits)}
                at = pos.get(newest, 99)
                for o in older:
                    pairs += 1
                    above += at < pos.get(o, 100)
        out[lang] = {"n": n, "newest@1": 100.0 * first / (n or 1), "newest_above_older": 100.0 * above / (pairs or 1)}
    return out


def run(data_dir: Path, split: str, diagnose: bool = False) -> dict:
    from memoir_desktop.core import Memoir

    _quiet_environment()
    para = json.loads((data_dir / "ko_paraphrase.json").read_text("utf-8"))
    chains = json.loads((data_dir / "recency_chains.json").read_text("utf-8"))
    throwaway_passphrase()  # the temporary journal is encrypted like any new one
    with tempfile.TemporaryDirectory(prefix="memoir-ko-") as tmp, _reproducible_ids(), cached_embeddings(), \
            Memoir.open(Path(tmp) / "home", reconcile=False) as mem:
        out = {"embedder": mem.models.embedder.name, "split": split, "paraphrase": paraphrase(mem, para, split),
               "recency": recency(mem, chains)}
        if diagnose:
            out["where_lost"] = where_lost(mem, para)
        return out


def render(r: dict) -> str:
    lines = [f"# Korean paraphrase set (split {r['split']}, embedder {r['embedder']})", "",
             "| kind | n | hit@1 | hit@5 | hit@10 | MRR@10 |", "|---|---:|---:|---:|---:|---:|"]
    for kind, v in sorted(r["paraphrase"].items(), key=lambda kv: kv[0] == "all"):
        lines.append(f"| {kind} | {v['n']} | {v['hit@1']:.1f} | {v['hit@5']:.1f} | {v['hit@10']:.1f} | "
                     f"{v['mrr@10']:.3f} |")
    lines += ["", "# Recency chains (present-tense questions; all versions active)", "",
              "| questions | n | newest first | newest above an older version |", "|---|---:|---:|---:|"]
    for lang, v in r["recency"].items():
        lines.append(f"| {lang} | {v['n']} | {v['newest@1']:.1f} | {v['newest_above_older']:.1f} |")
    if r.get("where_lost"):
        stages = ("no candidate (neither list's top 30)", "fusion (a list had it, the pool not)",
                  "ranking (in the pool, below 10)", "found in top 10", "dense top 30", "lexical top 30")
        lines += ["", "# Where paraphrase questions are lost (all questions)", "",
                  "| kind | " + " | ".join(stages) + " |", "|---|" + "---:|" * len(stages)]
        for kind, v in sorted(r["where_lost"].items(), key=lambda kv: kv[0] == "all"):
            lines.append(f"| {kind} | " + " | ".join(str(v.get(s, 0)) for s in stages) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(DEFAULT_DATA))
    p.add_argument("--split", choices=("fit", "check", "all"), default="all")
    p.add_argument("--expansion-weight", type=float, default=None)
    p.add_argument("--json", default=None)
    p.add_argument("--where-lost", action="store_true", help="also say at which stage each paraphrase is lost")
    a = p.parse_args(argv)
    if a.expansion_weight is not None:
        from memoir_desktop.core.search import query

        query.EXPANSION_WEIGHT = a.expansion_weight
        if a.expansion_weight <= 0:
            query.expand = lambda text, tokens: []
    if not (Path(a.data) / "ko_paraphrase.json").exists():
        print(f"ko_retrieval: no dev sets in {a.data}", file=sys.stderr)
        return 2
    r = run(Path(a.data), a.split, a.where_lost)
    return show(r, render(r), a.json)


if __name__ == "__main__":
    raise SystemExit(main())
