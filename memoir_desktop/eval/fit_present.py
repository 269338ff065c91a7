"""Fit how the version a question asks for is chosen (core/search/present.py) on spent blind sets.

    python -m memoir_desktop.eval.fit_present [--blind FOLDER ...] [--embed-model NAME] [--write]

Every question about now ("present") and about the version before or the first ("past" questions
the app reads as "before" or "first") of the spent blind sets (fit_reranker.SPENT_BLIND: each was
measured before and after the round it was written for, or its misses were read) is searched as the
app searches, with the choice switched off; its candidates' features are taken as the app takes
them, and the labelled version is the one to choose. The report gives, per mode and question language, how often the other
stages' first is that version and how often the fitted choice is, each set judged by weights fitted
on the other sets (leave one set out), so the number is for sets it did not see, and the same split by
the stage that set the first. --write stores the weights fitted on all sets in
core/search/present_weights.json. A blind set not yet measured must never be given here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from memoir_desktop.core.search import present
from memoir_desktop.core.search.rerank import fit
from memoir_desktop.eval.blind_retrieval import _asked, journals
from memoir_desktop.eval.embed_cache import cached_embeddings
from memoir_desktop.eval.fit_reranker import SPENT_BLIND
from memoir_desktop.eval.headless import throwaway_passphrase
from memoir_desktop.eval.ko_retrieval import _load
from memoir_desktop.eval.locomo_retrieval import _quiet_environment, _reproducible_ids

WEIGHTS_FILE = Path(present.__file__).with_name("present_weights.json")
ROOT = Path(__file__).resolve().parents[2]
KINDS = {"present": ("now",), "past": ("before", "first")}  # a blind set's kind -> the app's modes
L2 = 0.01  # 0.001 and 0.1 chose worse on the sets left out (Korean 144 and 139 of 279, against 150)


def collect(folders: list[Path], embed_model: str | None) -> tuple[str, list[dict]]:
    """One case per question about now: its set, language, features, labels and whether the other
    stages' first was right."""
    from memoir_desktop.core import Memoir

    _quiet_environment()
    throwaway_passphrase()
    seen: list[tuple] = []
    original = present.choose

    def capture(q, ranked, out, vectors_of, model):
        mode = present.mode_of(q)
        cands = present.candidates(q, mode, ranked, out)
        if present.applies(q, mode, out) and len(cands) >= 2:
            seen.append((cands, present.features(q, ranked, cands, vectors_of([c["id"] for c in cands]), out[0]["id"]),
                         present.first_set_by(out[0]), mode))
        return out

    overrides = {"embed_model": embed_model} if embed_model else {}
    cases = []
    present.choose = capture
    try:
        with tempfile.TemporaryDirectory(prefix="memoir-present-") as tmp, _reproducible_ids(), cached_embeddings(), \
                Memoir.open(Path(tmp) / "home", reconcile=False, **overrides) as mem:
            model = mem.models.embedder.name
            for folder in folders:
                for lang, j in journals(folder):
                    print(f"fit_present: {folder.name} {j['id']}", file=sys.stderr, flush=True)
                    user = f"{folder.name}-{j['id']}"
                    ids = _load(mem, user, j["memories"])
                    for q in j["questions"]:
                        if q["kind"] not in KINDS:
                            continue
                        seen.clear()
                        hits = mem.search(q["text"], user_id=user, limit=10, now=_asked(q["asked"]))["results"]
                        if not seen or not hits:
                            continue
                        rel = {ids[r] for r in q["relevant"]}
                        cands, x, path, mode = seen[0]
                        if mode not in KINDS[q["kind"]]:
                            continue  # the app would not choose for it ("처음" in a question about now)
                        cases.append({"set": folder.name, "lang": lang, "mode": mode, "x": x, "path": path,
                                      "y": np.array([c["id"] in rel for c in cands], dtype=float),
                                      "before": hits[0]["id"] in rel})
    finally:
        present.choose = original
    return model, cases


def fit_cases(cases: list[dict]) -> np.ndarray:
    x = np.vstack([c["x"] for c in cases])
    y = np.concatenate([c["y"] for c in cases])
    g = np.concatenate([[i] * len(c["y"]) for i, c in enumerate(cases)])
    return fit(x, y, g, l2=L2, steps=3000, mono=[], bias=False)


def chosen_right(c: dict, w: np.ndarray, margin: float = 0.0) -> bool:
    return bool(c["y"][present.chosen(c["x"], w, *present.over_the_list(c["path"], c["mode"], c["lang"], margin))] > 0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--blind", nargs="*", default=list(SPENT_BLIND), metavar="FOLDER")
    p.add_argument("--embed-model", default=None)
    p.add_argument("--margin", type=float, default=0.0, help="the best must beat the other stages' first by more")
    p.add_argument("--write", action="store_true")
    p.add_argument("--langs", nargs="*", default=["ko", "en"], choices=["ko", "en"],
                   help="with --write, the languages whose weights are replaced (the others' stay as stored)")
    p.add_argument("--modes", nargs="*", default=list(present.CHOSEN), choices=present.CHOSEN,
                   help="with --write, the modes whose weights are replaced (the others' stay as stored)")
    a = p.parse_args(argv)
    folders = [Path(f) if Path(f).is_absolute() else ROOT / f for f in a.blind]
    model, cases = collect(folders, a.embed_model)
    sets = sorted({c["set"] for c in cases})
    lines = [f"# The answer to a question about now, {model}: the other stages' first vs the fitted choice",
             "", "Each set judged by weights fitted on the other sets (leave one set out).", "",
             "| mode | language | set | questions | the wanted version first, before | chosen |",
             "|---|---|---|---:|---:|---:|"]
    store: dict = {}
    for mode in present.CHOSEN:
        for lang in ("ko", "en"):
            mine = [c for c in cases if c["lang"] == lang and c["mode"] == mode]
            if not mine:
                continue
            total = [0, 0, 0]
            by_path: dict[str, list[int]] = {}
            for s in sets:
                test = [c for c in mine if c["set"] == s]
                w = fit_cases([c for c in mine if c["set"] != s])
                right = [chosen_right(c, w, a.margin) for c in test]
                row = (len(test), sum(c["before"] for c in test), sum(right))
                total = [t + r for t, r in zip(total, row, strict=True)]
                lines.append(f"| {mode} | {lang} | {s} | {row[0]} | {row[1]} | {row[2]} |")
                for c, ok in zip(test, right, strict=True):
                    p3 = by_path.setdefault(c["path"], [0, 0, 0])
                    p3[0] += 1
                    p3[1] += c["before"]
                    p3[2] += ok
            lines.append(f"| {mode} | {lang} | all | {total[0]} | {total[1]} | {total[2]} |")
            for path, (n, before, after) in sorted(by_path.items()):
                lines.append(f"| {mode} | {lang} | first set by: {path} | {n} | {before} | {after} |")
            w = fit_cases(mine)
            store.setdefault(mode, {})[lang] = {
                "features": list(present.FEATURES), "weights": [round(float(v), 5) for v in w], "margin": a.margin,
                "fitted_on": sets, "left_out": {"before": total[1], "chosen": total[2], "of": total[0]}}
    lines += ["", "Weights fitted on all sets:", ""]
    for mode, by_lang in store.items():
        for lang, row in by_lang.items():
            lines.append(f"- {mode} {lang}: " + ", ".join(f"{n} {v:+.2f}" for n, v in zip(present.FEATURES, row["weights"])))
    print("\n".join(lines))
    if a.write:
        data = json.loads(WEIGHTS_FILE.read_text("utf-8")) if WEIGHTS_FILE.exists() else {"models": {}}
        stored = data["models"].get(model, {})
        for mode in a.modes:
            for lang in a.langs:
                if lang in store.get(mode, {}):
                    stored.setdefault(mode, {})[lang] = store[mode][lang]
        data["models"][model] = stored
        WEIGHTS_FILE.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
        present.weights_for.cache_clear()
        print(f"\nwritten: {WEIGHTS_FILE.name} ({model})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
