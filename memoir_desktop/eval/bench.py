"""Search latency benchmark: search at growing store sizes.

    python -m memoir_desktop.eval.bench [--sizes 1000 10000 50000] [--queries 200] [--embed-model NAME]
                                        [--vectors model|synthetic] [--profile] [--json OUT]

Search: one user's store is filled with synthetic Korean and English facts through the fast path
(``Memoir.add(infer=False)`` in batches of ``--batch``), growing from one size to the next, and at
each size ``--queries`` synthetic queries (some with time expressions) are timed through
``Memoir.search`` (query embedding included), next to its components: the query embedding alone,
dense only (embedding + embedded-Qdrant search), Qdrant search alone, memoir's lexical BM25 alone,
and the SQLite fetch of the candidate rows. ``--profile`` adds a cProfile breakdown of
``Memoir.search`` at the largest size. ``--vectors synthetic`` embeds only a pool of facts with the
model and reuses pool vectors plus noise for the rest (same staging and index path), for a 50k store
on a machine where the model embeds a few dozen facts per second.

LLM calls and tokens per journal turn are measured against the test suite's fake server, so that
benchmark lives with the tests: ``python -m tests.benchmarks.llm_calls``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from memoir_desktop.core.temporal import WEEKDAY_NAMES
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.stats import percentile

__all__ = ["main", "run_search", "synthetic_facts", "synthetic_queries"]

# --------------------------------------------------------------------------- synthetic data

_KO_PEOPLE = ["민지", "서연", "지훈", "도윤", "하은", "엄마", "아빠", "동생", "언니", "형", "팀장님", "할머니",
              "수아", "준호", "예린", "태민", "친구 유나", "사촌 민혁"]
_EN_PEOPLE = ["Mina", "my sister", "my boss", "Daniel", "Grace", "my roommate", "Uncle Joe", "Priya",
              "Tom", "my neighbour", "Coach Kim", "Lena"]
_KO_PLACES = ["한강공원", "성수동 카페", "부산 해운대", "제주도", "회사 근처 식당", "도서관", "헬스장", "강릉",
              "동네 빵집", "판교 사무실", "북한산", "홍대 공연장", "전주 한옥마을", "경주", "을지로 술집"]
_EN_PLACES = ["the climbing gym", "Central Park", "a ramen place downtown", "the farmers market",
              "Lisbon", "the office", "my parents' house", "the dentist", "Kyoto", "the bookstore",
              "a jazz bar", "the beach", "the community garden", "the airport"]
_KO_FOODS = ["김치찌개", "떡볶이", "디카페인 커피", "마라탕", "비빔밥", "냉면", "삼겹살", "초밥", "팥빙수", "라떼",
             "순두부", "칼국수", "치킨", "샐러드"]
_EN_FOODS = ["oat milk latte", "pho", "sourdough", "dark chocolate", "green tea", "tacos", "pad thai",
             "cold brew", "ramen", "avocado toast", "kimchi fried rice", "bagels"]
_KO_ACTS = ["자전거를 탔다", "요가를 했다", "기타 연습을 했다", "영화를 봤다", "등산을 했다", "책을 읽었다",
            "수영을 배웠다", "그림을 그렸다", "러닝을 10km 뛰었다", "사진을 찍었다", "피아노를 쳤다",
            "보드게임을 했다", "캠핑을 갔다", "일본어 공부를 했다"]
_EN_ACTS = ["went bouldering", "ran a half marathon", "started learning Spanish", "baked bread",
            "watched a documentary", "practised the cello", "went birdwatching", "did a pottery class",
            "played tennis", "repaired my bike", "wrote a short story", "planted tomatoes",
            "tried a new yoga studio", "went to a board game night"]
_KO_FEEL = ["정말 즐거웠다", "조금 피곤했다", "마음이 편안해졌다", "생각보다 힘들었다", "다음에 또 가고 싶다",
            "스트레스가 풀렸다", "기분이 좀 우울했다", "뿌듯했다"]
_EN_FEEL = ["it was great fun", "I felt exhausted afterwards", "it calmed me down", "it was harder than expected",
            "I want to do it again", "it lifted my mood", "I felt a bit lonely", "I was proud of myself"]
_KO_TEMPLATES = [
    "{p}{와} {pl}에서 {a}. {f}",
    "{p}{랑} {food}{을} 먹었다. {f}",
    "{d} {pl}에 갔다. {f}",
    "요즘 {food}에 빠져 있다. {pl} 근처에서 자주 산다",
    "{p}{가} {pl} 쪽으로 이사했다고 한다",
    "{p} 생일 선물로 {item}{을} 샀다. {n}만원 들었다",
    "{d}에 {a}. {f}",
    "{food}{은} 별로 안 좋아한다. {p}{는} 좋아한다",
    "{p}{와} {d}에 {pl}에서 만나기로 했다",
    "매주 {wd}마다 {a2}. {p}{도} 같이 한다",
    "{item} 가격이 {n}만원이었다. {pl}에서 봤다",
    "{p}에게 {item}{을} 빌려줬다. {d}까지 돌려받기로 했다",
    "{pl}에서 {n}시간 동안 {a}",
    "{p}{가} 추천해 준 {food} 맛집에 갔다. {f}",
]
_EN_TEMPLATES = [
    "Met {p} at {pl} and {a}; {f}.",
    "Had {food} with {p} at {pl}; {f}.",
    "On {d} I {a}; {f}.",
    "I have been really into {food} lately, mostly from {pl}.",
    "{P} moved near {pl}.",
    "Bought a {item} as a gift for {p}; it cost {n}0 dollars.",
    "I don't like {food} much, but {p} loves it.",
    "Every {wd} I {a} with {p}.",
    "The {item} from {pl} cost {n}0 dollars.",
    "Lent my {item} to {p} on {d}.",
    "Planning a trip to {pl} with {p}; we will {a2en}.",
    "Spent {n} hours at {pl} and {a}.",
]
_EN_A2 = ["go hiking", "visit museums", "eat street food", "rent bikes", "see a concert", "swim every day"]
_KO_ITEMS = ["블루투스 스피커", "운동화", "전기 포트", "캠핑 의자", "향수", "머그컵", "무선 이어폰", "우산", "책 세트"]
_EN_ITEMS = ["bluetooth speaker", "rain jacket", "espresso machine", "yoga mat", "cookbook", "camera lens",
             "desk lamp", "board game", "fountain pen"]
_KO_WD = ["월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"]
_EN_WD = list(WEEKDAY_NAMES)
_KO_A2 = ["필라테스를 한다", "장을 본다", "부모님께 전화한다", "독서 모임에 간다", "축구를 한다"]

_KO_QUERIES = ["{p}{랑} 뭐 했었지?", "{pl}에 언제 갔더라", "내가 좋아하는 음식", "{food} 먹은 날", "작년 이맘때 뭐 했지",
               "지난달에 산 물건", "최근에 운동한 기록", "{p} 이사", "요즘 기분이 어때", "{a} 언제 했지",
               "선물로 뭘 샀었지", "주말에 주로 하는 일"]
_EN_QUERIES = ["What did I do with {p}?", "When did I go to {pl}?", "what food do I like", "last month trips",
               "gifts I bought", "how was my mood last week", "{food}", "Where does {P} live now?",
               "hobbies I started recently", "what did I do on weekends"]


def _has_batchim(word: str) -> bool:
    ch = word[-1]
    return "가" <= ch <= "힣" and (ord(ch) - 0xAC00) % 28 != 0


def _josa(tpl: str) -> str:
    """Resolve {을}/{은}/{가}/{와}/{랑}/{는}/{도} markers against the word before them."""
    pairs = {"을": ("을", "를"), "은": ("은", "는"), "는": ("은", "는"), "가": ("이", "가"),
             "와": ("과", "와"), "랑": ("이랑", "랑"), "도": ("도", "도")}
    out = []
    i = 0
    while i < len(tpl):
        if tpl[i] == "{" and tpl[i + 2:i + 3] == "}" and tpl[i + 1] in pairs:
            prev = "".join(out).rstrip()
            with_b, without = pairs[tpl[i + 1]]
            out.append(with_b if prev and _has_batchim(prev) else without)
            i += 3
        else:
            out.append(tpl[i])
            i += 1
    return "".join(out)


def _fill(tpl: str, rng: random.Random, ko: bool, base: datetime) -> str:
    d = base - timedelta(days=rng.randrange(0, 900))
    p = rng.choice(_KO_PEOPLE if ko else _EN_PEOPLE)
    text = tpl.format_map(_Slots(
        p=p, P=p[:1].upper() + p[1:], pl=rng.choice(_KO_PLACES if ko else _EN_PLACES),
        a=rng.choice(_KO_ACTS if ko else _EN_ACTS), a2=rng.choice(_KO_A2), a2en=rng.choice(_EN_A2),
        f=rng.choice(_KO_FEEL if ko else _EN_FEEL), food=rng.choice(_KO_FOODS if ko else _EN_FOODS),
        item=rng.choice(_KO_ITEMS if ko else _EN_ITEMS), wd=rng.choice(_KO_WD if ko else _EN_WD),
        n=rng.randrange(2, 60),
        d=f"{d.year}년 {d.month}월 {d.day}일" if ko else f"{d.strftime('%B')} {d.day}, {d.year}",
    ))
    return _josa(text) if ko else text


class _Slots(dict):
    def __missing__(self, key: str) -> str:  # josa markers survive formatting, resolved afterwards
        return "{" + key + "}"


def synthetic_facts(n: int, seed: int = 7, start: int = 0) -> list[tuple[str, datetime]]:
    """``n`` varied (fact, recorded-at) pairs, about 60 % Korean, deterministic for a seed and offset."""
    out = []
    base = datetime(2025, 6, 30, 21, 0)
    for i in range(start, start + n):
        rng = random.Random(seed * 1_000_003 + i)
        ko = rng.random() < 0.6
        text = _fill(rng.choice(_KO_TEMPLATES if ko else _EN_TEMPLATES), rng, ko, base)
        if rng.random() < 0.5:
            h = rng.randrange(1, 12)
            text += f" (오후 {h}시쯤)" if ko else f" (around {h} pm)"
        when = base - timedelta(days=rng.randrange(0, 900), minutes=rng.randrange(0, 1440))
        out.append((text, when))
    return out


def synthetic_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    base = datetime(2025, 6, 30)
    out = []
    for _ in range(n):
        ko = rng.random() < 0.6
        out.append(_fill(rng.choice(_KO_QUERIES if ko else _EN_QUERIES), rng, ko, base))
    return out


# --------------------------------------------------------------------------- helpers


def _progress(msg: str, end: str = "\n") -> None:
    print(msg, file=sys.stderr, end=end, flush=True)


def _bench_environment() -> None:
    # No real LLM is ever called: keep the OS keyring out of it, and stay offline.
    os.environ["MEMOIR_LLM_API_KEY"] = "unused-by-benchmark"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    throwaway_passphrase()  # its temporary journals are encrypted like any new one


def _p(xs: list[float]) -> tuple[float, float]:
    return (percentile(xs, 50), percentile(xs, 95)) if xs else (0.0, 0.0)


def _loadavg() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # not on Windows
        return None


def _timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - t) * 1000


# --------------------------------------------------------------------------- search latency

_PROFILE_PARTS = (
    ("query embedding", "embedder.py", "embed_query"),
    ("Qdrant local search", "vectors.py", "search"),
    ("lexical BM25 search", "lexical.py", "search"),
    ("SQLite fetch (get_many)", "store.py", "get_many"),
    ("time span (query_span)", "temporal.py", "query_span"),
    ("time span SQL (_in_span)", "retrieval.py", "_in_span"),
    ("lexical explain", "lexical.py", "explain"),
    ("result dicts (memory_dict)", "store.py", "memory_dict"),
    ("metrics record", "metrics.py", "record"),
)


def _profile_breakdown(prof: cProfile.Profile, total_search_ms: float, n: int) -> list[tuple[str, float]]:
    stats = pstats.Stats(prof).stats  # {(file, line, func): (cc, nc, tt, ct, callers)}
    rows = []
    for label, file_end, func in _PROFILE_PARTS:
        ct = sum(v[3] for (f, _, fn), v in stats.items() if f.endswith(file_end) and fn == func)
        rows.append((label, ct * 1000 / n))
    rows.append(("total Memoir.search (profiled)", total_search_ms))
    return rows


def run_search(sizes: Sequence[int], queries: int, *, embed_model: str | None = None, batch: int = 500,
               profile: bool = False, seed: int = 7, vectors: str = "model", pool: int = 2000) -> dict:
    """Search latency at each size. ``vectors="model"`` loads through ``Memoir.add(infer=False)`` (the
    model embeds every fact); ``"synthetic"`` embeds only the first ``pool`` facts with the model and
    gives every later fact a pool vector plus noise (same staging and index path, no embedding):
    Qdrant's local search cost depends on the number of points, not their values, so the search
    timings stay valid while a 50k load takes minutes instead of hours on a slow machine.
    """
    _bench_environment()
    from memoir_desktop.core import Memoir

    sizes = sorted({int(s) for s in sizes})
    qs = synthetic_queries(queries, seed=seed + 4)
    out: dict = {"sizes": {}, "vectors": vectors}
    with tempfile.TemporaryDirectory(prefix="memoir-bench-") as tmp:
        overrides = {"embed_model": embed_model} if embed_model else {}
        with Memoir.open(Path(tmp) / "home", reconcile=False, **overrides) as mem:
            _, load_ms = _timed(mem.models.embedder.load)
            out["embedder"] = mem.models.embedder.name
            _progress(f"embedder {mem.models.embedder.name} loaded in {load_ms / 1000:.1f}s")
            user = "bench"
            have = 0
            load_s_total = 0.0
            embedded = {"n": 0, "s": 0.0}
            pool_vecs = None
            rng = None
            now = datetime(2025, 7, 1, 9, 0)
            for size in sizes:
                t0 = time.perf_counter()
                while have < size:
                    n = min(batch, size - have)
                    facts = synthetic_facts(n, seed=seed, start=have)
                    texts = [f for f, _ in facts]
                    when = facts[0][1]  # one add per batch, so one timestamp per batch
                    if vectors == "model":
                        t = time.perf_counter()
                        mem.add(texts, infer=False, user_id=user, timestamp=when)
                        embedded["n"] += n
                        embedded["s"] += time.perf_counter() - t
                    else:
                        import numpy as np

                        if have < pool:
                            t = time.perf_counter()
                            vecs = np.asarray(mem.store.embed_texts(texts), dtype=np.float32)
                            embedded["n"] += n
                            embedded["s"] += time.perf_counter() - t
                            pool_vecs = vecs if pool_vecs is None else np.concatenate([pool_vecs, vecs])
                        else:
                            rng = rng or np.random.default_rng(seed)
                            vecs = pool_vecs[rng.integers(0, len(pool_vecs), n)]
                            vecs = vecs + rng.normal(0, 0.02, vecs.shape).astype(np.float32)
                            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                        _stage_with_vectors(mem, user, texts, when, vecs)
                    have += n
                    el = time.perf_counter() - t0
                    _progress(f"\rloading {have:,}/{size:,} memories ({el:.0f}s)", end="")
                load_s = time.perf_counter() - t0
                load_s_total += load_s
                _progress("")
                row = _measure(mem, user, qs, now, profile and size == sizes[-1])
                row["load_s"] = load_s
                row["load_s_cumulative"] = load_s_total
                row["memories"] = have
                row["loadavg"] = _loadavg()
                out["sizes"][str(size)] = row
                _progress(f"size {size:,}: search p50 {row['search'][0]:.1f} ms, p95 {row['search'][1]:.1f} ms")
            out["embed_rate"] = embedded["n"] / embedded["s"] if embedded["s"] else None
    return out


def _stage_with_vectors(mem, user: str, texts: list[str], when: datetime, vecs) -> None:
    """What ``add(infer=False)`` does, with the vectors given instead of computed."""
    from sqlmodel import Session

    from memoir_desktop.core.pipeline.extraction import fact_span
    from memoir_desktop.core.storage.store import Change

    change = Change()
    with Session(mem.engine) as s:
        for text, vec in zip(texts, vecs, strict=True):
            mem.store.stage_add(s, change, user_id=user, text=text, actor="user", created_at=when,
                                about=fact_span(text, when), vector=vec)
        s.commit()
    mem.store.apply_index(user, change)


def _measure(mem, user: str, qs: list[str], now: datetime, profile: bool) -> dict:
    store = mem.store
    collection = store.collection(user)
    t = time.perf_counter()
    bm = store.bm25(user)  # built on first use; timed separately, not part of any query
    bm_build_ms = (time.perf_counter() - t) * 1000
    for q in qs[:5]:  # warm-up: caches, Kiwi, Qdrant's in-memory arrays
        mem.search(q, user_id=user, limit=10, now=now)
    lat: dict[str, list[float]] = {k: [] for k in ("search", "embed", "dense", "qdrant", "lexical", "sqlite")}
    for q in qs:
        _res, ms = _timed(lambda q=q: mem.search(q, user_id=user, limit=10, now=now)["results"])
        lat["search"].append(ms)
        vec, e_ms = _timed(store.embedder.embed_query, q)
        dense, s_ms = _timed(store.vectors.search, collection, vec, 30)
        lat["embed"].append(e_ms)
        lat["qdrant"].append(s_ms)
        lat["dense"].append(e_ms + s_ms)
        lex, l_ms = _timed(bm.search, q, 30)
        lat["lexical"].append(l_ms)
        ids = list(dict.fromkeys([str(i) for i, _ in dense] + [i for i, _ in lex]))
        _, f_ms = _timed(store.get_many, ids)
        lat["sqlite"].append(f_ms)
    row = {k: _p(v) for k, v in lat.items()}
    row["bm25_build_ms"] = bm_build_ms
    if profile:
        prof = cProfile.Profile()
        times = []
        prof.enable()
        for q in qs:
            _, ms = _timed(lambda q=q: mem.search(q, user_id=user, limit=10, now=now))
            times.append(ms)
        prof.disable()
        row["profile"] = _profile_breakdown(prof, sum(times) / len(times), len(qs))
        row["profile_top"] = _top_functions(prof, len(qs))
    return row


def _top_functions(prof: cProfile.Profile, n: int, limit: int = 12) -> list[tuple[str, float]]:
    stats = pstats.Stats(prof).stats
    rows = sorted(((f"{Path(f).name}:{line}({fn})", v[2] * 1000 / n) for (f, line, fn), v in stats.items()),
                  key=lambda r: -r[1])
    return rows[:limit]


# --------------------------------------------------------------------------- report


def render(search: dict | None) -> str:
    lines: list[str] = []
    if search:
        lines += [f"# Search latency — embedder {search['embedder']} (ms, p50 / p95)", "",
                  ("| memories | load (s) | load rate (/s) | Memoir.search | query embed | dense only | "
                  "Qdrant search | lexical BM25 | SQLite fetch | BM25 build | load avg |"),
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for size, r in search["sizes"].items():
            added = r["memories"] - (int(_prev_size(search, size)) if _prev_size(search, size) else 0)
            rate = added / r["load_s"] if r["load_s"] else 0.0

            def f(key, r=r):
                return f"{r[key][0]:.1f} / {r[key][1]:.1f}"

            lines.append(f"| {int(size):,} | {r['load_s']:.1f} | {rate:.0f} | {f('search')} | {f('embed')} | "
                         f"{f('dense')} | {f('qdrant')} | {f('lexical')} | {f('sqlite')} | "
                         f"{r['bm25_build_ms'] / 1000:.1f} s | {r.get('loadavg')} |")
        rate = search.get("embed_rate")
        if search.get("vectors") == "synthetic":
            lines += ["", ("Vectors: the model embedded the first facts (the pool); later facts reuse a pool "
                      "vector plus noise, loaded through the same staging and index path (load column "
                      "excludes the model's embedding time for those).")]
        if rate:
            lines += ["", (f"Model embedding while loading: {rate:.1f} facts/s "
                      f"(a 50,000-fact load would take about {50_000 / rate / 60:.0f} min).")]
        lines += ["", ("Targets: search p95 ≤ 30 ms at 10k, ≤ 80 ms at 50k. Load = add(infer=False) from the "
                  "previous size (embedding included). load avg: 1-minute system load when measured "
                   f"({os.cpu_count()} CPUs); timings on a busy machine are inflated."), ""]
        for size, r in search["sizes"].items():
            if "profile" in r:
                lines += [(f"## Where Memoir.search spends its time at {int(size):,} memories "
                          "(cProfile, mean ms per query, inclusive)"), "", "| part | ms |", "|---|---:|"]
                lines += [f"| {label} | {ms:.2f} |" for label, ms in r["profile"]]
                lines += ["", "| top functions (self time) | ms |", "|---|---:|"]
                lines += [f"| `{name}` | {ms:.2f} |" for name, ms in r["profile_top"]]
                lines.append("")
    return "\n".join(lines)


def _prev_size(search: dict, size: str) -> str | None:
    keys = list(search["sizes"])
    i = keys.index(size)
    return keys[i - 1] if i else None


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m memoir_desktop.eval.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--batch", type=int, default=500, help="memories per add(infer=False) call")
    p.add_argument("--embed-model", default=None)
    p.add_argument("--vectors", choices=("model", "synthetic"), default="model",
                   help="model: every fact embedded through add(infer=False); synthetic: only a pool of "
                        "--pool facts is, later ones reuse pool vectors plus noise (fast loads)")
    p.add_argument("--pool", type=int, default=2000, help="facts embedded by the model with --vectors synthetic")
    p.add_argument("--profile", action="store_true", help="cProfile Memoir.search at the largest size")
    p.add_argument("--json", default=None, help="also write the results as JSON to this path")
    args = p.parse_args(argv)

    search = run_search(args.sizes, args.queries, embed_model=args.embed_model, batch=args.batch,
                        profile=args.profile, vectors=args.vectors, pool=args.pool)
    print(render(search))
    if args.json:
        Path(args.json).write_text(json.dumps({"search": search}, indent=1, ensure_ascii=False, default=str),
                                   "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
