"""Everyday sentences a query is also compared with when the user's own store is small.

The relevance floor (search/floor.py) asks whether a query's best dense hit stands out from how
the query scores against everything. With three memories there is no "everything" to stand out
from, and an absolute similarity cannot tell a paraphrase (반려견 걷기 for 강아지 산책) from
nonsense: multilingual-e5 scores both about 0.83. These sentences, about ordinary days in both
languages and about no one in particular, stand in for the rest of a diary: a paraphrase still
stands out from them, nonsense scores like them. Written for this project; measured by
`python -m memoir_desktop.eval.relevance_floor --small` (numbers in floor.py).
"""

from __future__ import annotations

import threading

import numpy as np

SENTENCES = (
    "오늘 아침에 늦잠을 잤다", "점심으로 김치찌개를 먹었다", "엄마와 통화했다", "회의가 길어져서 피곤했다",
    "주말에 친구들과 영화를 봤다", "비가 와서 우산을 챙겼다", "요가 수업에 다녀왔다", "월세를 냈다",
    "동생 생일 선물을 샀다", "퇴근길 지하철이 붐볐다", "새 책을 읽기 시작했다", "감기 기운이 있다",
    "카페에서 일기를 썼다", "제주도 여행을 계획 중이다", "팀장님께 칭찬을 받았다", "방 청소를 했다",
    "밤에 잠이 안 와서 음악을 들었다", "할머니 댁에 다녀왔다", "새로운 운동화를 샀다", "시험 공부를 했다",
    "친구 결혼식에 갔다", "병원에서 건강검진을 받았다", "자전거를 타고 한강에 갔다", "새 노트북을 샀다",
    "이사 준비로 바쁘다", "저녁에 피아노를 연습했다", "부모님과 외식했다", "야근을 했다",
    "I went for a run this morning", "Had dinner with my parents", "Work was stressful today",
    "I started learning Spanish", "My sister called me", "I bought groceries", "It snowed all day",
    "I watched a movie with friends", "Paid the rent", "I feel tired lately", "Cooked pasta for dinner",
    "Planning a trip to Japan", "My boss liked my presentation", "I cleaned the apartment",
    "Read a novel before bed", "Went to the dentist", "My cat knocked over a glass", "Started a new job",
)

_cache: dict[str, np.ndarray] = {}
_lock = threading.Lock()


def reference_scores(embedder, vector: np.ndarray) -> np.ndarray:
    """The query's cosine similarity with each sentence (embedded once per model and process:
    about half a second with e5-small, paid by the first small-store query without a known word)."""
    with _lock:
        mat = _cache.get(embedder.name)
        if mat is None:
            mat = np.asarray(embedder.embed_documents(list(SENTENCES)), dtype=np.float32)
            mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
            _cache[embedder.name] = mat
    v = np.asarray(vector, dtype=np.float32)
    return mat @ (v / max(float(np.linalg.norm(v)), 1e-12))


def korean_mask() -> np.ndarray:
    """Which of SENTENCES are Korean (per-language comparisons, search/floor.py)."""
    return np.array([any("\uac00" <= c <= "\ud7a3" for c in t) for t in SENTENCES])

