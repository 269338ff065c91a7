"""Ordering the versions of a state a question names (search/states.py) by what it asks:
- about now ("요즘 어디 살아?"): the newest version first;
- about the first one ("처음 살던 곳은?", "my first car"): the oldest first;
- about the one before ("아이폰 쓰기 전엔 무슨 폰이었지?", "Where did I live before Denver?"): the
  version just before the one the question names (or, naming none, before the newest) first.
The other versions keep the places the versions had, below. A version the first stage did not
reach is brought in (it may share no word with the question: "서울 마포구로 이사했다" for
"요즘 어디 살아?"). Anything else is left as the first stage ranked it.
"""

from __future__ import annotations

import re

from sqlmodel import Session, col, select

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.search import clusters, states, versions
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.storage.models import Memory
from memoir_desktop.core.storage.store import memory_dict
from memoir_desktop.core.temporal.present import asks_about_before

# A state's words in more memories than this (a huge journal): no search for versions beyond what
# the first stage found, which would cost more than the search itself.
SCAN = 2000
BROUGHT_IN = 5  # versions brought in per state
FRAME_SCAN = 50  # versions.py's links in more memories than this: none brought in
# A kind the list names answers a question about now only with a version among this many best ranked
# (_anchored). 3 and 5 measured alike on the spent blind sets; 5 keeps "지금 회사 어디 다녀?", whose
# job changes share no word with it, below three everyday lines about the office.
LIST_ANCHOR = 5
# A name in more of the journal's memories than this is whom it is all about (LoCoMo's speakers are
# named in 47-69 % of theirs), not someone in the diarist's life.
NAMED_SHARE = 0.4


def order_states(engine, bm, user_id: str, q: Query, out: list[dict], passes, vectors_of=None) -> list[dict]:
    """`vectors_of(ids)` -> {id: vector}: for the versions by meaning (English), when given."""
    # A question about a time that has passed ("2025년 봄에 어디 살았어?") wants the version in
    # force then: the last one recorded by the end of that time (it may be recorded before it).
    mode = "now" if q.asks_now else asks_about_before(q.text) or ("then" if q.asks_about_the_past else None)
    if not mode or not out:
        return out
    if not versions.about_the_diarist(q.text):
        if mode == "now" and vectors_of is not None and q.vector() is not None:
            return _theirs_by_meaning(q, out, vectors_of, bm)
        return out
    wanted = states.asked(q.text, q.tokens)
    member: dict[str, str] = {}
    tokens_of = bm.tokens_of(d["id"] for d in out)
    for d in out:
        aspect = states.aspect_of(d["memory"], tokens_of[d["id"]], wanted) if wanted else None
        if aspect is not None and versions.mine(d["memory"], q.text):  # someone else's move is no version of theirs
            member[d["id"]] = aspect.name
    if mode == "now":
        # Not for the first or an earlier version: it often shares few words with the question and
        # ranks far down (anchoring those cost "old found" on five of the spent blind sets).
        member = _anchored(member, out)
    if not member:
        # No kind the list knows: the versions as the question's own words and the memories'
        # structure show them (Korean); else, for a question about now, those that cluster near it
        # (clusters.py); else as their meaning groups them (English; versions.py); or none, and the
        # ranking stands.
        if q.recurrence or (q.span and (q.span[1] - q.span[0]).days < 7):
            return out  # "What do I do on Thursday?": a day's doings or habits, not a state that changed
        if not versions.marked(q.text):
            return out
        framed = _by_frame(engine, bm, user_id, q, out, passes, mode, tokens_of)
        if framed is not out or vectors_of is None:
            return framed
        if mode == "now" and q.vector() is not None:
            clustered = _by_cluster(q, out, vectors_of)
            if clustered is not out:
                return clustered
        return _by_meaning(q, out, vectors_of, mode, bm)
    shown = {d["id"] for d in out}
    # A past time's version is looked for among what the search found (its span already pulled in
    # what was recorded then); reading every version from the index cost 5 ms a question.
    for aspect in {a for a in wanted if a.name in member.values() and mode != "then"}:
        found = bm.docs_with(aspect.alone | aspect.led)  # "moved into the flat": stated by a phrase
        if aspect.objects:
            found |= bm.docs_with(aspect.objects) & bm.docs_with(aspect.verbs)
        found -= shown
        if not found or len(found) > SCAN:
            continue
        for m in _versions(engine, user_id, found, newest=mode != "first"):
            if passes(m) and versions.mine(m.text, q.text) \
                    and states.aspect_of(m.text, bm.tokens_of([m.id])[m.id], [aspect]) is aspect:
                out.append(memory_dict(m, score=0.0, explain={"state": {"aspect": aspect.name}}))
                member[m.id] = aspect.name
                shown.add(m.id)
    pick = _picker(mode, q, bm)
    return states.answer_first(out, member, pick)


def _anchored(member: dict[str, str], out: list[dict]) -> dict[str, str]:
    """The kinds with a version among the ranking's best few. A kind the list reads in the
    question's words ("다니다": work) whose versions the ranking put far down is not what the question is
    about ("민화 그리러 아직 다니나?", "도율이 지금 다니는 데가 어디였지?"): moving them up put an unrelated
    memory first (the spent blind set 2026-12-07c: 8 of its 17 Korean present misses). The question
    then goes to the paths that read its own words (as versions.group anchors its seeds)."""
    top = {d["id"] for d in out[:LIST_ANCHOR]}
    near = {name for i, name in member.items() if i in top}
    return {i: name for i, name in member.items() if name in near}


def _by_frame(engine, bm, user_id: str, q: Query, out: list[dict], passes, mode: str,
              tokens_of: dict[str, set[str]]) -> list[dict]:
    found, links = versions.group(q.text, out, tokens_of, bm.doc_freq)
    if not found:
        return out  # the same list: the caller tries by meaning
    name = "asked"
    member = dict.fromkeys(found, name)
    # A version the ranking did not reach (it may share no word with the question: "시티팝에 빠졌다"
    # for "요즘 무슨 음악 들어?" shares only the verb with another version).
    extra = bm.docs_with(links) - {d["id"] for d in out}
    # The links are rare words: many memories with them (a journal of one template) are no versions
    # of one thing, and reading them all would cost more than the search.
    if extra and len(extra) <= FRAME_SCAN:
        for m in _versions(engine, user_id, extra, newest=mode != "first"):
            if passes(m) and versions.linked(m.text, bm.tokens_of([m.id])[m.id], links):
                out.append(memory_dict(m, score=0.0, explain={"state": {"aspect": name}}))
                member[m.id] = name
    pick = _picker(mode, q, bm)
    return states.answer_first(out, member, pick)


def _by_meaning(q: Query, out: list[dict], vectors_of, mode: str, bm) -> list[dict]:
    group = versions.by_meaning(q.text, q.vector(), out, vectors_of([d["id"] for d in out[:versions.MEANING_DEPTH]]))
    if not group:
        return out
    member = dict.fromkeys(group, "meaning")
    pick = _picker(mode, q, bm)
    return states.answer_first(out, member, pick)


def _by_cluster(q: Query, out: list[dict], vectors_of) -> list[dict]:
    """The newest of the versions that cluster near the question first (clusters.py). On the spent
    blind sets (2026-12-06, -06b), newest first: 50 -> 57 of 143 questions about now."""
    mine = [d for d in out if versions.mine(d["memory"], q.text)]  # someone else's doing is no version of theirs
    found = clusters.group(q.vector(), mine, vectors_of([d["id"] for d in mine[:clusters.TOP]]))
    if not found:
        return out
    return states.answer_first(out, dict.fromkeys(found, "cluster"), _newest)


def _theirs_by_meaning(q: Query, out: list[dict], vectors_of, bm) -> list[dict]:
    """An English question about now that names someone else ("What's Dara up to now?", "Is Tom still
    vegan?"; a Korean one reads whose line it is in versions.mine): their versions are among the lines
    that name them, those that answer the question together (versions.meaning_group, as for the
    diarist's own in English); the newest of them first.
    Without it the ranking stood and their oldest news, which says the most about them, came first.
    A name in more than NAMED_SHARE of the journal is whom the whole journal is about (LoCoMo's two
    speakers), not someone in the diarist's life: there grouping cost LoCoMo dev 26 of 383 questions
    at all@1. On the spent blind sets English newest first rose by 8 questions and fell by 1."""
    names = versions.entities(q.text)
    if not names:
        return out
    n, df = bm.doc_freq({t for name in names for t in tokenize(name)})
    if not n or max(df.values(), default=0) > NAMED_SHARE * n:
        return out
    said = [re.compile(rf"\b{re.escape(name)}\b", re.I) for name in names]
    theirs = [d for d in out if any(p.search(d["memory"]) for p in said)]
    found = versions.meaning_group(q.vector(), theirs, vectors_of([d["id"] for d in theirs[:versions.MEANING_DEPTH]]))
    if not found:
        return out
    return states.answer_first(out, dict.fromkeys(found, "theirs"), _newest)


def _versions(engine, user_id: str, ids: set[str], *, newest: bool) -> list[Memory]:
    order = col(Memory.created_at).desc() if newest else col(Memory.created_at).asc()
    with Session(engine) as s:
        return list(s.exec(select(Memory).where(
            col(Memory.id).in_(list(ids)), col(Memory.user_id) == user_id, col(Memory.state) == "active")
            .order_by(order).limit(BROUGHT_IN)).all())


def _picker(mode: str, q: Query, bm):
    if mode == "then":
        return lambda vs: _then(vs, q)
    return {"now": _newest, "first": _oldest, "before": lambda vs: _before(vs, set(q.tokens), bm)}[mode]


def _then(versions: list[dict], q: Query) -> dict:
    end = q.span[1].isoformat() if q.span else q.now.date().isoformat()
    held = [v for v in versions if v["created_at"][:10] <= end]
    return states.latest(held) if held else versions[0]


def _newest(versions: list[dict]) -> dict:
    return states.latest(versions)


def _oldest(versions: list[dict]) -> dict:
    return versions[0]


def _before(found: list[dict], asked: set[str], bm) -> dict:
    """The version before the one the question names by a word of its own ("Denver", "아이폰"),
    or before the newest; versions naming the same one (a person, a place: "도윤이랑 사귀기로
    했다", "도윤이와 약혼했다") are one version, so "전 남친" is the one before 도윤, not 도윤 a
    month earlier."""
    named = None
    tokens = bm.tokens_of(v["id"] for v in found)
    cues = set().union(*(a.cues for a in states.aspects()))
    for at, v in enumerate(found):
        if (tokens[v["id"]] & asked) - cues:
            named = at
    at = len(found) - 1 if named is None else named
    names = versions.entities(found[at]["memory"])
    while at > 0 and names & (earlier := versions.entities(found[at - 1]["memory"])):
        names |= earlier
        at -= 1
    answer = found[max(at - 1, 0)]
    if named is not None and at > 0:
        answer["explain"]["before"] = "named"  # the version before one the question names: present.py keeps it
    return answer
