"""Fit the second stage's weights (core/search/rerank.py) on the fit halves of the dev sets and
report them on the halves it did not see.

    python -m memoir_desktop.eval.fit_reranker --data PATH/locomo-dev.json
           [--sets tests/data/retrieval] [--blind FOLDER ...] [--embed-model NAME] [--write]

The dev sets: LoCoMo dev (observations as memories; a candidate is relevant when it covers an
evidence turn; questions split 60/40 by a hash of their text), the Korean paraphrase set (its own
fit/check split) and the recency chains (present-tense questions: the newest version is the
relevant one; split 60/40 by chain) and the blind sets already spent as evidence (--blind; each was
measured before and after the round it was written for, and its misses were then read, so it is a dev
set now: present questions want the newest version first, past ones the old version; split 60/40 by
question). A blind set not yet measured must never be given here. For each question the first stage's top 30 are taken with the
relevance floor on and the second stage off; features are computed as the app computes them; a
logistic regression with each question weighted equally is fitted on the fit rows. The table gives,
for fit and check: LoCoMo all@10, paraphrase hit@5 / hit@10 / MRR@10, chains newest@1 and the blind
sets' hit@1, first stage alone and with the second stage reordering the first 10 or all 30. A
language's weights are used where the check half's blind hit@1 gains and its guard does not fall
(Korean paraphrase hit@10, LoCoMo all@10 for English), at the depth that gains most (MAIN_METRIC), and
for questions about a version too unless there they put the wanted version first less often.
--write stores the weights for this embedding model in core/search/rerank_weights.json (--langs: only
those languages').
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

from memoir_desktop.core.search import rerank as rr
from memoir_desktop.core.search.floor import topic_threshold
from memoir_desktop.eval.blind_retrieval import _asked
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.ko_retrieval import DEFAULT_DATA, _load
from memoir_desktop.eval.locomo_data import load_locomo
from memoir_desktop.eval.locomo_retrieval import (
    _items,
    _quiet_environment,
    _reproducible_ids,
    _select_questions,
)

WEIGHTS_FILE = Path(rr.__file__).with_name("rerank_weights.json")
# Spent blind sets (memoir_desktop/eval/results/README.md says when each was spent). The shipped
# present_weights.json was fitted on the first sixteen; its Korean weights for questions about now on
# the first nineteen (fit_present-d6e0698.txt). 2026-12-07n and -07o were spent after (their last runs).
SPENT_BLIND = tuple(f"tests/data/blind/2026-12-{d}" for d in ("06", "06b", "06c", "06d", "06e", "06f", "07", "07b", "07c",
                                                                  "07d", "07e", "07f", "07g", "07h", "07i", "07j", "07k", "07l",
                                                                  "07m", "07n", "07o"))


def _half(key: str) -> str:
    return "fit" if int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 10 < 6 else "check"


class Case:
    """One question: its first-stage candidates, their features and labels."""

    def __init__(self, kind: str, split: str, lang: str, cands: list[dict], x: np.ndarray, y: np.ndarray,
                 extra=None):
        self.kind, self.split, self.lang = kind, split, lang
        self.cands, self.x, self.y, self.extra = cands, x, y, extra


def _case(mem, user, text, now, topic) -> tuple[list[dict], np.ndarray]:
    q = mem.retriever.read_query(text, now)
    cands = mem.retriever.facts.search(user, q, limit=rr.POOL, second_stage=None)
    vecs = mem.store.vectors.vectors(mem.store.collection(user), [c["id"] for c in cands])
    return cands, rr.features(q, cands, vecs, q.vector(), topic)


def collect(data: str, sets: Path, embed_model: str | None, blind: tuple[str, ...] = ()) -> tuple[str, list[Case]]:
    from memoir_desktop.core import Memoir

    _quiet_environment()
    cases: list[Case] = []
    overrides = {"embed_model": embed_model} if embed_model else {}
    throwaway_passphrase()  # the temporary journal is encrypted like any new one
    with tempfile.TemporaryDirectory(prefix="memoir-rerank-") as tmp, _reproducible_ids(), \
            Memoir.open(Path(tmp) / "home", reconcile=False, **overrides) as mem:
        model = mem.models.embedder.name
        topic = topic_threshold(model)
        for conv, questions in _select_questions(load_locomo(data), None):
            user = f"locomo-{conv.sample_id}"
            dia_of: dict[str, list[str]] = {}
            by_session: dict[int, list] = defaultdict(list)
            for it in _items(conv, dated=False):
                by_session[it[0]].append(it)
            for its in by_session.values():
                res = mem.add([it[2] for it in its], infer=False, timestamp=its[0][1], user_id=user)["results"]
                dia_of.update((r["id"], it[3]) for r, it in zip(res, its, strict=True))
            now = max(s.date for s in conv.sessions) + timedelta(days=1)
            print(f"{conv.sample_id}: {len(questions)} questions", file=sys.stderr)
            for qa in questions:
                cands, x = _case(mem, user, qa.question, now, topic)
                ev = set(qa.evidence)
                y = np.array([1.0 if ev & set(dia_of.get(c["id"], [])) else 0.0 for c in cands])
                cases.append(Case("locomo", _half(qa.question), "en", cands, x, y,
                                  {"evidence": ev, "dia": [dia_of.get(c["id"], []) for c in cands]}))
        para = json.loads((sets / "ko_paraphrase.json").read_text("utf-8"))
        ids = _load(mem, "para", para["memories"])
        for q in para["questions"]:
            cands, x = _case(mem, "para", q["question"], datetime.fromisoformat(q["asked"]).replace(hour=12), topic)
            want = {ids[r] for r in q["relevant"]}
            cases.append(Case("paraphrase", q["split"], "ko", cands, x,
                              np.array([1.0 if c["id"] in want else 0.0 for c in cands])))
        # Korean questions that share words with their memory, as most do: the paraphrase set shares
        # none by design, and alone it teaches that shared words mark a wrong memory. One query per
        # sampled memory from its two rarest content words (synthetic, made here, not a dev set).
        for m, text in _direct_queries(mem, para["memories"], n=len(para["questions"])):
            cands, x = _case(mem, "para", text, datetime(2026, 12, 1, 12), topic)
            cases.append(Case("direct", _half(m["id"] + text), "ko", cands, x,
                              np.array([1.0 if c["id"] == ids[m["id"]] else 0.0 for c in cands])))
        chains = json.loads((sets / "recency_chains.json").read_text("utf-8"))
        ids = _load(mem, "chains", [m for c in chains["chains"] for m in c["memories"]] + chains["distractors"])
        for c in chains["chains"]:
            newest = ids[c["newest"]]
            for q in c["questions"]:
                cands, x = _case(mem, "chains", q["question"], datetime.fromisoformat(q["asked"]).replace(hour=12),
                                 topic)
                cases.append(Case("chains", _half(c["id"]), c["lang"], cands, x,
                                  np.array([1.0 if h["id"] == newest else 0.0 for h in cands])))
        for folder in blind:
            cases += _blind_cases(mem, Path(folder), topic)
    return model, cases


def _blind_cases(mem, folder: Path, topic: float) -> list[Case]:
    out = []
    for lang in ("ko", "en"):
        for j in json.loads((folder / f"{lang}.json").read_text("utf-8"))["journals"]:
            user = f"{folder.name}-{j['id']}"
            ids = _load(mem, user, j["memories"])
            for q in j["questions"]:
                cands, x = _case(mem, user, q["text"], _asked(q["asked"]), topic)
                want = {ids[r] for r in q["relevant"]}
                out.append(Case(f"blind {q['kind']}", _half(f"{folder.name}/{q['id']}"), j["lang"], cands, x,
                                np.array([1.0 if c["id"] in want else 0.0 for c in cands])))
    return out


def _direct_queries(mem, memories: list[dict], n: int) -> list[tuple[dict, str]]:
    from memoir_desktop.core.lexical import tokenize_many

    toks = tokenize_many([m["text"] for m in memories])
    df: dict[str, int] = defaultdict(int)
    for ts in toks:
        for t in set(ts):
            df[t] += 1
    picked = sorted(range(len(memories)), key=lambda i: hashlib.sha256(memories[i]["id"].encode()).hexdigest())[:n]
    out = []
    for i in picked:
        rare = sorted(set(toks[i]), key=lambda t: (df[t], t))[:2]
        if rare:
            out.append((memories[i], " ".join(rare) + " 언제였지?"))
    return out


def _metrics(cases: list[Case], w: np.ndarray | None, depth: int = rr.POOL) -> dict[str, float]:
    out: dict[str, list[float]] = defaultdict(list)
    for c in cases:
        order = list(range(len(c.cands))) if w is None else rr.reordered(c.x @ w, depth)
        ranked = [c.y[i] for i in order]
        if c.kind == "locomo":
            covered = {d for i in order[:10] for d in c.extra["dia"][i]}
            out["locomo all@10"].append(100.0 * (c.extra["evidence"] <= covered))
        elif c.kind == "direct":
            rank = next((k + 1 for k, v in enumerate(ranked[:10]) if v), None)
            out["direct hit@1"].append(100.0 * (rank == 1))
            out["direct hit@5"].append(100.0 * bool(rank and rank <= 5))
        elif c.kind == "paraphrase":
            rank = next((k + 1 for k, v in enumerate(ranked[:10]) if v), None)
            out["para hit@5"].append(100.0 * bool(rank and rank <= 5))
            out["para hit@10"].append(100.0 * bool(rank))
            out["para MRR@10"].append(1.0 / rank if rank else 0.0)
        elif c.kind.startswith("blind"):
            # present: the newest version first; past: the old one; the other kinds: an answer first
            out[f"{c.kind} hit@1"].append(100.0 * bool(ranked and ranked[0]))
            out["blind hit@1"].append(100.0 * bool(ranked and ranked[0]))
            if c.kind in ("blind present", "blind past"):
                out["blind versions hit@1"].append(100.0 * bool(ranked and ranked[0]))
            out["blind hit@5"].append(100.0 * any(ranked[:5]))
        else:
            out["chains newest@1"].append(100.0 * bool(ranked and ranked[0]))
    return {k: float(np.mean(v)) for k, v in out.items()}


# A language's weights are used when, on the check half, the first metric gains and the second (the
# guard) does not fall; of the depths that do, the one that gains most. Without blind sets, the first
# metric is the guard alone ("gains": Korean paraphrase hit@10, LoCoMo all@10 for English).
MAIN_METRIC = {"ko": ("blind hit@1", "para hit@10"), "en": ("blind hit@1", "locomo all@10")}
DEPTHS = (10, rr.POOL)


def fit_language(cases: list[Case], lang: str) -> tuple[np.ndarray, dict, int, bool]:
    """The weights, {depth: {half: (first stage, reranked) metrics}}, the depth chosen and whether to use them."""
    mine = [c for c in cases if c.lang == lang]
    fit_cases = [c for c in mine if c.split == "fit" and len(c.cands)]
    x = np.concatenate([c.x for c in fit_cases])
    y = np.concatenate([c.y for c in fit_cases])
    groups = np.concatenate([np.full(len(c.cands), i) for i, c in enumerate(fit_cases)])
    w = rr.fit(x, y, groups)
    res = {d: {s: (_metrics([c for c in mine if c.split == s], None),
                   _metrics([c for c in mine if c.split == s], w, d)) for s in ("fit", "check")} for d in DEPTHS}
    gain, guard = MAIN_METRIC[lang]
    if gain not in res[rr.POOL]["check"][0]:
        gain = guard
    good = [d for d in DEPTHS if res[d]["check"][1][gain] > res[d]["check"][0][gain]
            and res[d]["check"][1][guard] >= res[d]["check"][0][guard]]
    depth = max(good, key=lambda d: (res[d]["check"][1][gain], d)) if good else rr.POOL
    return w, res, depth, bool(good)


def for_versions(res: dict) -> bool:
    """Whether the weights reorder questions about a version too: not where, on the check half, they
    put the wanted version first less often than the first stage (whose order the version stages,
    state_order.py and present.py, were fitted to read)."""
    first, reranked = res["check"]
    key = "blind versions hit@1"
    return key not in first or reranked[key] >= first[key]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="LoCoMo dev JSON")
    p.add_argument("--sets", default=str(DEFAULT_DATA), help="folder with ko_paraphrase.json and recency_chains.json")
    p.add_argument("--blind", nargs="*", default=[], metavar="FOLDER",
                   help=f"spent blind set folders as dev data too (spent so far: {', '.join(SPENT_BLIND)})")
    p.add_argument("--embed-model", default=None)
    p.add_argument("--write", action="store_true", help="store the fitted weights for this embedding model")
    p.add_argument("--langs", nargs="*", default=["ko", "en"], choices=["ko", "en"],
                   help="with --write, the languages whose weights are replaced (the others' stay as stored)")
    a = p.parse_args(argv)
    model, cases = collect(a.data, Path(a.sets), a.embed_model, tuple(a.blind))
    lines = [f"# Second stage, {model}: first stage alone vs with the learned reranking, per query language"]
    store: dict = {}
    stored = rr.weights_for(model, "ko"), rr.weights_for(model, "en")
    for lang, now_used in zip(("ko", "en"), stored, strict=True):
        w, by_depth, depth, use = fit_language(cases, lang)
        res = by_depth[depth]
        check = [c for c in cases if c.lang == lang and c.split == "check"]
        in_use = _metrics(check, now_used.w, now_used.depth) if now_used is not None else None
        n = {s: sum(c.split == s and c.lang == lang for c in cases) for s in ("fit", "check")}
        gain, guard = MAIN_METRIC[lang]
        keys = [k for k in (gain, guard) if k in res["check"][0]]
        said = ", ".join(f"check {k} {res['check'][0][k]:.1f} -> {res['check'][1][k]:.1f}" for k in keys)
        lines += ["", f"## {lang} questions (fit {n['fit']}, check {n['check']}); used: {'yes' if use else 'no'}, "
                      f"reordering the first {depth} ({said})", "",
                  "| metric | fit: first | fit: reranked | check: first | check: reranked | "
                  + " | ".join(f"check: first {d} reranked" for d in DEPTHS if d != depth)
                  + " | check: weights in use |",
                  "|---|---:|---:|---:|---:|" + "---:|" * (len(DEPTHS) - 1) + "---:|"]
        for k in res["fit"][0]:
            used = f"{in_use[k]:.1f}" if in_use is not None else "—"
            others = " | ".join(f"{by_depth[d]['check'][1][k]:.1f}" for d in DEPTHS if d != depth)
            lines.append(f"| {k} | {res['fit'][0][k]:.1f} | {res['fit'][1][k]:.1f} | {res['check'][0][k]:.1f} | "
                         f"{res['check'][1][k]:.1f} | {others} | {used} |")
        lines += ["", "| feature | weight |", "|---|---:|"]
        lines += [f"| {f} | {v:+.3f} |" for f, v in zip(rr.FEATURES, w, strict=True)]
        versions = for_versions(res)
        lines += ["", f"Questions about a version reordered too: {'yes' if versions else 'no'}."]
        store[lang] = {"features": list(rr.FEATURES), "weights": [round(float(v), 5) for v in w],
                       "topic": topic_threshold(model), "depth": depth if depth < rr.POOL else None,
                       "for_versions": versions, "use": use,
                       "fitted": date.today().isoformat(),
                       "check": {"first": res["check"][0], "reranked": res["check"][1]},
                       "fit": {"first": res["fit"][0], "reranked": res["fit"][1]}}
    print("\n".join(lines))
    if a.write:
        data = json.loads(WEIGHTS_FILE.read_text("utf-8")) if WEIGHTS_FILE.exists() else {"models": {}}
        kept = data["models"].get(model, {})
        data["models"][model] = {lang: store[lang] if lang in a.langs else kept[lang]
                                 for lang in ("ko", "en") if lang in a.langs or lang in kept}
        WEIGHTS_FILE.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"\nwrote {WEIGHTS_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
