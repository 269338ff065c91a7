"""The versions of what a question about now asks: the memories near the top that are near each other.

"Which bank do I use now?" ranks, among its best, the account opened last winter, the one it replaced,
the daughter's bank and a lake the diarist fishes at. Versions of one thing are close in meaning to
each other as well as to the question; a memory that is only somewhat like the question stands alone.
No list of kinds of change is needed, and none of the absolute similarity a model gives: multilingual
e5 puts unrelated memories of one journal at 0.85 and versions of a state at 0.89, so "close" is
measured against the rest of the same ranking (standard deviations above the mean pair, the mean
memory), which reads the same for any model.

Among the few best-ranked memories, each of the first ANCHORS is the centre of a cluster: the memories
that are close to it and about as close to the question as the best. The largest cluster wins (a
cluster centred lower needs more members: SIZE_STEP a place); its newest version is the answer to
a question about now. It is asked only when the list of kinds (states.py) and the question's frame
(versions.py) find nothing: on the spent blind sets (tests/data/blind/2026-12-06, -06b) that order
kept the project's own changing-facts set at 92.7 %, where the clusters asked first took it to 44 %
(a newer remark about the same thing, "회사 탕비실 커피 머신이 새로 들어왔다", is close too).
The constants were chosen there: newest first 50 -> 57 of their 143 questions about now. On the set
that was not used (2026-12-06c, eval/results/blind-2026-12-06c-{before,after}.txt) it was 13 of 42
either way: Korean 7 -> 9, English 6 -> 4. On a fourth set written after this change
(2026-12-06d, eval/results/blind-2026-12-06d-at-*.txt): 7 -> 12 of 42, every other measure the same.
"""

from __future__ import annotations

import numpy as np

from memoir_desktop.core.search.versions import standardized

TOP = 8  # the clusters are among this many best-ranked memories
ANCHORS = 2  # ... and centred on one of the first this many
PAIR_Z = 1.5  # two memories are close: this many standard deviations above the pool's mean pair
QUESTION_Z = 1.0  # a member is as close to the question as the best, give or take this many deviations
SIZE_STEP = 0.5  # members a cluster centred one place lower needs to make up for it


def group(qvec, results: list[dict], vecs: dict) -> list[str]:
    """The ids of the versions (two or more) among `results[:TOP]`, or [] when none stand together."""
    top = [r for r in results[:TOP] if r["id"] in vecs]
    if qvec is None or len(top) < 3:
        return []
    mat = np.stack([np.asarray(vecs[r["id"]], dtype=np.float64) for r in top])
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
    pairs = mat @ mat.T
    upper = pairs[np.triu_indices(len(top), 1)]
    close = (pairs - upper.mean()) / (upper.std() or 1.0) >= PAIR_Z
    qv = np.asarray(qvec, dtype=np.float64)
    near = standardized(mat @ (qv / (np.linalg.norm(qv) or 1.0)))
    member = near >= near.max() - QUESTION_Z
    best: tuple[float, list[int]] | None = None
    for a in range(min(ANCHORS, len(top))):
        cluster = [a] + [j for j in range(len(top)) if j != a and close[a, j] and member[j]]
        score = len(cluster) - a * SIZE_STEP
        if len(cluster) > 1 and (best is None or score > best[0]):
            best = (score, cluster)
    return [top[i]["id"] for i in best[1]] if best else []
