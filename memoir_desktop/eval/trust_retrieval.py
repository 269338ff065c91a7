"""How far memory search can be trusted: paraphrase and cross-lingual questions, small journals with
nonsense queries, and facts that changed over time, side by side.

    python -m memoir_desktop.eval.trust_retrieval [--data tests/data/retrieval] [--json OUT]
           [--only crosslingual,small,changing]

1. crosslingual (ko_paraphrase.json + crosslingual.json): hit@1, hit@5 and MRR@10 per category
   (each ko_paraphrase kind and ko→ko over all, the same-language baseline; each cross-lingual
   lang_pair; en→en the baseline for ko→en) for the API (`mem.search`: listing=False) and for the
   search field (`mem.search_field.find`: listing=True), each with the floor on and off. All four columns come
   from one code path, `mem.retriever.facts.search(..., floor=True | None, listing=...)`, so the
   floor's cost (on minus off, in points) is the only difference; a footnote counts questions whose
   top 10 from the public `mem.search` / `mem.search_field.find` differs from the "on" column.
2. small (small_journals.json): per journal size, the share of nonsense queries for which the search
   field lists any memory, any entry, or either, and hit@5 of the real queries there (memories and
   entries). Each line is a memory (`mem.add(infer=False)`) and an entry (`mem.journal`, private, so
   it is indexed at once and no LLM job is queued: this harness has no LLM).
3. changing (changing_facts.json): `mem.search` on present questions (newest@1, newest in top 3)
   and on past ones (hit@3 of the state that answers, and the share where the newest state ranks
   first although it does not answer), Korean, English and all.
Everything runs in a temporary home with memory ids from a seeded generator (reproducible).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from memoir_desktop.eval.embed_cache import cached_embeddings
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.ko_retrieval import _load
from memoir_desktop.eval.locomo_retrieval import _quiet_environment, _reproducible_ids
from memoir_desktop.eval.output import show

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "retrieval"
PARTS = ("crosslingual", "small", "changing")
COLUMNS = (("api", False), ("field", True))


def _now(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(hour=12)


def _rank(hits: list[str], want: set[str]) -> int | None:
    return next((i + 1 for i, h in enumerate(hits) if h in want), None)


def _score(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {"n": len(ranks), "hit@1": 100.0 * sum(1 for r in ranks if r == 1) / n,
            "hit@5": 100.0 * sum(1 for r in ranks if r and r <= 5) / n,
            "mrr": sum(1.0 / r for r in ranks if r) / n}


def _pad(text: str, width: int) -> str:
    """Left-justify by display width: a Hangul syllable takes two columns in a terminal."""
    return text + " " * max(0, width - sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text))


def _order(item) -> tuple:
    return not item[0].startswith("ko→ko"), item[0] == "ko→ko all", item[0]


def _progress(msg: str) -> None:
    print(f"trust_retrieval: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- 1. categories


def crosslingual(mem, para: dict, cross: dict, unrelated: dict | None = None) -> dict:
    ids = {**_load(mem, "para", para["memories"]), **_load(mem, "en", cross["memories_en"])}
    questions = [(f"ko→ko {q['kind']}", "para", q) for q in para["questions"]]
    questions += [(q["lang_pair"], "en" if q["lang_pair"].endswith("en") else "para", q) for q in cross["questions"]]
    # The check half alone too: the floor's per-pair minimum was chosen on the fit half.
    questions += [(f"{q['lang_pair']} (check half)", "en" if q["lang_pair"].endswith("en") else "para", q)
                  for q in cross["questions"] if q.get("split") == "check" and not q["lang_pair"].startswith("en→en")]
    ranks: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    differ = {"api": 0, "field": 0}
    for k, (cat, user, q) in enumerate(questions):
        if k % 50 == 0:
            _progress(f"categories {k}/{len(questions)}")
        want = {ids[r] for r in q["relevant"]}
        query = mem.retriever.read_query(q["question"], _now(q["asked"]))
        for col, listing in COLUMNS:
            for floor, name in ((True, "on"), (None, "off")):
                hits = [h["id"] for h in mem.retriever.facts.search(user, query, limit=10, floor=floor,
                                                                    listing=listing)]
                for c in (cat, "ko→ko all" if cat.startswith("ko→ko") else None):
                    if c:
                        ranks[c][f"{col} {name}"].append(_rank(hits, want))
                if name == "on" and not cat.endswith("(check half)"):
                    public = (mem.search(q["question"], user_id=user, limit=10, now=_now(q["asked"]))["results"]
                              if col == "api" else
                              mem.search_field.find(q["question"], user_id=user, limit=10, now=_now(q["asked"]))["memories"])
                    differ[col] += [h["id"] for h in public] != hits
    listed: dict[str, list[bool]] = defaultdict(list)
    by_meaning: dict[str, list[bool]] = defaultdict(list)  # listed a memory sharing no word with it
    for lang, texts in (unrelated or {}).items():
        if lang not in ("en", "ko"):
            continue
        for text in texts:
            for user, store in (("para", "ko"), ("en", "en")):
                found = mem.search_field.find(text, user_id=user, limit=10, now=_now("2026-11-30"))
                listed[f"{lang}→{store}"].append(bool(found["memories"]))
                by_meaning[f"{lang}→{store}"].append(any("lexical" not in (m.get("explain") or {})
                                                         for m in found["memories"]))
    return {"categories": {c: {k: _score(v) for k, v in cols.items()} for c, cols in ranks.items()},
            "public_differs": differ,
            "n": sum(not c.endswith("(check half)") for c, _, _ in questions),
            "unrelated": {pair: {"n": len(v), "pct": 100.0 * sum(v) / (len(v) or 1),
                                 "by meaning pct": 100.0 * sum(by_meaning[pair]) / (len(v) or 1)}
                          for pair, v in listed.items()}}


def render_crosslingual(r: dict) -> list[str]:
    head = _pad("category", 24) + "   n" + "".join(f" | {c:<17}" for c in ("api on", "api off", "field on",
                                                                             "field off"))
    lines = ["# 1. Paraphrase and cross-lingual questions: hit@1 / hit@5 / MRR@10", "", head,
             " " * 28 + " |   h@1   h@5   MRR" * 4]
    for cat, cols in sorted(r["categories"].items(), key=_order):
        row = f"{_pad(cat, 24)}{cols['api on']['n']:>4}"
        for c in ("api on", "api off", "field on", "field off"):
            v = cols[c]
            row += f" | {v['hit@1']:5.1f} {v['hit@5']:5.1f} {v['mrr']:.3f}"
        lines.append(row)
    lines += ["", "floor cost, on minus off (points of hit@1 / hit@5, MRR x100)", "",
              _pad("category", 24) + " | api" + " " * 17 + " | field"]
    for cat, cols in sorted(r["categories"].items(), key=_order):
        row = _pad(cat, 24)
        for c in ("api", "field"):
            on, off = cols[f"{c} on"], cols[f"{c} off"]
            row += (f" | {on['hit@1'] - off['hit@1']:+6.1f} {on['hit@5'] - off['hit@5']:+6.1f} "
                    f"{100 * (on['mrr'] - off['mrr']):+6.1f}")
        lines.append(row)
    d = r["public_differs"]
    lines += ["", f"top 10 of the public call differs from the 'on' column: mem.search {d['api']}, "
                  f"mem.search_field.find {d['field']} of {r['n']} questions"]
    if r.get("unrelated"):
        lines += ["", "unrelated questions (real words, nothing in the journal): share for which the search "
                      "field lists a memory, and one sharing no word with the question (lower is better)",
                  "", "pair   |  n | listed % | by meaning alone %"]
        lines += [f"{pair:<6} | {v['n']:>2} | {v['pct']:8.1f} | {v['by meaning pct']:18.1f}"
                  for pair, v in sorted(r["unrelated"].items())]
    return lines


# --------------------------------------------------------------------------- 2. small journals


def small(mem, data: dict) -> dict:
    per: dict[int, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for k, j in enumerate(data["journals"]):
        _progress(f"small journal {k + 1}/{len(data['journals'])} ({j['size']} lines)")
        user = j["id"]
        ids = _load(mem, user, j["memories"])
        entry = {m["id"]: mem.journal.write(m["text"], user_id=user, private=True,
                                      timestamp=datetime.fromisoformat(m["recorded"]).replace(hour=21))
                 for m in j["memories"]}
        now = _now(j["asked"])
        for text in j["nonsense"]:
            found = mem.search_field.find(text, user_id=user, now=now)
            row = per[j["size"]]
            row["nonsense memories"].append(bool(found["memories"]))
            row["nonsense entries"].append(bool(found["entries"]))
            row["nonsense any"].append(bool(found["memories"] or found["entries"]))
        for q in j["queries"]:
            found = mem.search_field.find(q["query"], user_id=user, now=now)
            m_rank = _rank([h["id"] for h in found["memories"]], {ids[r] for r in q["relevant"]})
            e_rank = _rank([e["id"] for e in found["entries"]], {entry[r] for r in q["relevant"]})
            per[j["size"]]["real memories"].append(bool(m_rank and m_rank <= 5))
            per[j["size"]]["real entries"].append(bool(e_rank and e_rank <= 5))
    return {str(size): {k: {"n": len(v), "pct": 100.0 * sum(v) / (len(v) or 1)} for k, v in row.items()}
            for size, row in sorted(per.items())}


def render_small(r: dict) -> list[str]:
    cols = ("nonsense memories", "nonsense entries", "nonsense any", "real memories", "real entries")
    lines = ["# 2. Small journals in the search field (mem.search_field.find)", "",
             "nonsense: share of queries listing anything (lower is better); real: hit@5 (higher is better)",
             "", "size | n nonsense | memories | entries | either | n real | hit@5 memories | hit@5 entries"]
    for size, row in r.items():
        v = [row[c]["pct"] for c in cols]
        lines.append(f"{size:>4} | {row['nonsense any']['n']:>10} | {v[0]:8.1f} | {v[1]:7.1f} | {v[2]:6.1f} | "
                     f"{row['real memories']['n']:>6} | {v[3]:14.1f} | {v[4]:13.1f}")
    return lines


# --------------------------------------------------------------------------- 3. changing facts


def changing(mem, data: dict) -> dict:
    rows: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for s in data["stores"]:
        _progress(f"changing facts {s['id']}")
        ids = _load(mem, s["id"], s["memories"])
        for q in s["questions"]:
            hits = [h["id"] for h in mem.search(q["question"], user_id=s["id"], limit=10,
                                                now=_now(q["asked"]))["results"]]
            newest = _rank(hits, {ids[q["newest"]]})
            for lang in (s["lang"], "all"):
                row = rows[lang]
                if q["when"] == "present":
                    row["newest@1"].append(newest == 1)
                    row["newest@3"].append(bool(newest and newest <= 3))
                else:
                    got = _rank(hits, {ids[i] for i in q["relevant"]})
                    row["past hit@3"].append(bool(got and got <= 3))
                    row["past newest first"].append(newest == 1)
    return {lang: {k: {"n": len(v), "pct": 100.0 * sum(v) / (len(v) or 1)} for k, v in row.items()}
            for lang, row in rows.items()}


def render_changing(r: dict) -> list[str]:
    lines = ["# 3. Changing facts through mem.search (every state active)", "",
             "lang | n present | newest@1 | newest in top 3 | n past | past hit@3 | newest wrongly first"]
    for lang in ("ko", "en", "all"):
        if lang in r:
            v = r[lang]
            lines.append(f"{lang:>4} | {v['newest@1']['n']:>9} | {v['newest@1']['pct']:8.1f} | "
                         f"{v['newest@3']['pct']:15.1f} | {v['past hit@3']['n']:>6} | {v['past hit@3']['pct']:10.1f}"
                         f" | {v['past newest first']['pct']:20.1f}")
    return lines


# --------------------------------------------------------------------------- the run


def run(data_dir: Path, only: tuple[str, ...] = PARTS) -> dict:
    from memoir_desktop.core import Memoir

    _quiet_environment()
    read = lambda name: json.loads((data_dir / name).read_text("utf-8"))  # noqa: E731
    throwaway_passphrase()  # the temporary journal is encrypted like any new one
    out: dict = {"seconds": {}}
    with tempfile.TemporaryDirectory(prefix="memoir-trust-") as tmp, _reproducible_ids(), cached_embeddings(), \
            Memoir.open(Path(tmp) / "home", reconcile=False) as mem:
        out["embedder"] = mem.models.embedder.name
        for part in only:
            start = time.perf_counter()
            if part == "crosslingual":
                out[part] = crosslingual(mem, read("ko_paraphrase.json"), read("crosslingual.json"),
                                         read("unrelated_queries.json"))
            elif part == "small":
                out[part] = small(mem, read("small_journals.json"))
            else:
                out[part] = changing(mem, read("changing_facts.json"))
            out["seconds"][part] = round(time.perf_counter() - start, 1)
    return out


def render(r: dict) -> str:
    lines = [f"memory search trust report (embedder {r['embedder']})", ""]
    for part, fn in (("crosslingual", render_crosslingual), ("small", render_small), ("changing", render_changing)):
        if part in r:
            lines += fn(r[part]) + [f"({r['seconds'][part]} s)", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(DEFAULT_DATA))
    p.add_argument("--json", default=None)
    p.add_argument("--only", default=",".join(PARTS), help="comma-separated: " + ",".join(PARTS))
    a = p.parse_args(argv)
    only = tuple(s.strip() for s in a.only.split(",") if s.strip())
    if bad := [s for s in only if s not in PARTS]:
        print(f"trust_retrieval: unknown part(s) {', '.join(bad)}", file=sys.stderr)
        return 2
    if not (Path(a.data) / "crosslingual.json").exists():
        print(f"trust_retrieval: no evaluation sets in {a.data}", file=sys.stderr)
        return 2
    r = run(Path(a.data), only)
    return show(r, render(r), a.json)


if __name__ == "__main__":
    raise SystemExit(main())
