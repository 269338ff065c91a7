"""Rival answers: the best-ranked memory and the ones near it that are about the same particular thing.

"지금 쓰는 핸드폰 기종이 뭐야?" ranks "폰은 갤럭시 S21을 4년째 쓰는 중" (2024) and "갤럭시 액정이 깨져서
아이폰 16으로 갈아탔다" (2026) first and second: both answer the question, and only the order of
their dates says which answer holds now. No list of kinds of change is needed to see that they are
rivals: they are ranked together at the top and share a word that few memories of the journal
have (갤럭시, a cat food's brand, a gym's name) — a particular thing, not a common word (하다, 회사)
nor the name of someone who is in half the journal.

A question about now (temporal/present.py) puts the newest rival first; one about the first time (처음, at first) the
oldest; one about "before" the one just before the newest. The rivals keep the places they had,
in the new order; nothing else moves. When the top memory has no rival, the ranking stands.

Where states.py recognised the kind of state, its ordering stands, with one exception: when its
words found a single version ("폰은 갤럭시 S21을 쓰는 중"), a newer rival that says the diarist changed
into something (Korean "-(으)로 + verb": "갤럭시 액정이 깨져서 아이폰 16으로 갈아탔다") is the newer
version the list has no words for. The shared word must name a thing; what a memory does (Kiwi's
predicates) is no particular thing.
"""

from __future__ import annotations

import math

from memoir_desktop.core.search import states, versions
from memoir_desktop.core.temporal.present import asks_about_before

TOP = 5  # rivals are among this many best-ranked memories
# A particular thing's word: in at most this many memories, or this share of a large journal.
FEW_DOCS = 3
RARE_SHARE = 0.02
# ... and as close in meaning to the question as the best of them, give or take this (cosine): a
# memory that shares the rare word but is about something else ("회의실 예약을 잘못했다" beside "보드게임
# 모임은 회사 회의실에서 한다") is further away.
DENSE_MARGIN = 0.05


def reorder(question: str, asks_now: bool, asks_past: bool, out: list[dict], bm) -> list[dict]:
    mode = asks_about_before(question) or ("now" if asks_now and not asks_past else None)
    if mode is None or len(out) < 2 or not (versions.about_the_diarist(question) or versions.marked(question)):
        # "What is Caroline's job?" is no state of the diarist's (LoCoMo dev all@1: -4.5 points);
        # "Where does Mum live now?" says which time it wants (blind dev sets a and c: 4 more newest
        # first, 2 more old versions found).
        return out
    top = out[:TOP]
    state = top[0]["explain"].get("state")
    if state and state.get("versions", 0) > 1:
        return out  # state_order.py recognised the kind of state and ordered its versions
    tokens = bm.tokens_of(d["id"] for d in top)
    total, freq = bm.doc_freq(tokens[top[0]["id"]])
    limit = max(FEW_DOCS, math.ceil(RARE_SHARE * total))
    # A particular thing is named, not done: "갈아탔다" shared by a car's change and a phone's is no
    # thing they are both about (in a small journal every word is rare).
    # Nor is the question's word of time ("John's first call-out" and "Maria's first time surfing").
    done = versions.predicates(top[0]["memory"]) | versions.time_words(question)
    lead = {w for w in tokens[top[0]["id"]] if 1 < freq.get(w, 0) <= limit and w not in done}
    if not lead:
        return out
    close = _dense(top)
    best = max(close.values(), default=None)
    at = [0] + [i for i in range(1, len(top)) if tokens[top[i]["id"]] & lead
                and (best is None or close.get(top[i]["id"], best) >= best - DENSE_MARGIN)]
    if len(at) < 2:
        return out
    group = sorted((top[i] for i in at), key=lambda d: d["created_at"])
    if mode == "before" and group[-1] is not top[0]:
        return out  # "예전에 부산 살 때…": the ranking already has a version that is not the current one
    pick = {"now": states.latest(group), "first": group[0]}.get(mode, group[-2])  # before: the one before the newest
    if pick is top[0]:
        return out
    if state and not versions.changes_into(pick["memory"]):
        # The list found one version and put it first. A newer rival is another version only when it
        # says the diarist changed into something ("아이폰 16으로 갈아탔다", a version the list has no
        # words for); otherwise it is a remark about the same thing ("아파트 주차장에 전기차 충전기가
        # 생겼다" beside "전기차 아이오닉으로 갈아탔다").
        return out
    # The pick takes the first place; the other rivals follow in the places they had.
    result = list(out)
    for slot, d in zip(at, [pick, *(top[i] for i in at if top[i] is not pick)]):
        result[slot] = d
        d["explain"]["rivals"] = {"mode": mode, "of": len(at)}
    return result


def _dense(found: list[dict]) -> dict[str, float]:
    """Each memory's cosine to the question, where the first stage measured it."""
    return {d["id"]: float(d["explain"]["dense"]["score"]) for d in found
            if isinstance(d["explain"].get("dense"), dict) and "score" in d["explain"]["dense"]}
