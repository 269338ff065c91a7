"""Versions of one thing, read from the question and the memories' own structure — no list of kinds.

states.py knows the kinds of change a life has by their words (home, work, partner, a pet…); a
life has more kinds than any list ("요즘 무슨 음악 들어?", "What instrument am I learning now?").
For a question about a state that names no kind the list knows, the versions are found from what
the question itself says:

- the question's frame: what it states (its predicates: Kiwi's verb and adjective stems and the
  noun of a 하다-verb, 이사 of 이사하다; English: its content words) and what it names (the nouns
  it puts in a role, "음악을", "악기"), less its words of time ("요즘", "now", "처음", "before");
- seeds: the memories near the top of the ranking that state one of those predicates or name one
  of those things in a role of their own ("재즈를 듣는다" for "무슨 음악 들어?");
- versions: the seeds and the memories that state what a seed states (one step: "힙합만 듣는다",
  "시티팝에 빠져서 매일 듣는다" share 듣다), from the ranking or from the words' index;
- not versions: what someone else does (a Korean honorific, "아버지는 … 사신다") and a question
  whose best-ranked memories state none of it (a paraphrase asks about something else: then the
  ranking stands).

The versions are then ordered as states.answer_first orders a named state's (state_order.py).
Measured with `python -m memoir_desktop.eval.trust_retrieval` / `ko_retrieval` (the project's
sets) and `blind_retrieval` (a set written without seeing this code).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.lexical.tokens import morphemes
from memoir_desktop.core.script import has_hangul
from memoir_desktop.core.temporal import present

SEED_DEPTH = 10  # the seeds are among this many best-ranked memories
ANCHOR = 3  # ... and one of them among this many: otherwise the question is about something else
# A word in more than this share of the user's memories (and more than FEW of them) says nothing of
# which thing a memory is about (받다, 다니다): it neither seeds nor links versions. In a small
# journal every word is in a good share of it: there, FEW.
RARE = 0.03
FEW = 8
# English, by meaning (by_meaning): among this many best-ranked, the centre of the question's CENTRE
# best matches, and the GROUP closest to both. Chosen on the dump of the project's own sets
# (changing_facts, recency_chains; both languages) before the English gate; 3-5 / 3-4 measured alike.
MEANING_DEPTH, CENTRE, GROUP = 10, 5, 4
# ... and no further from the question than the closest by this (cosine): in a journal of ten lines
# the four "closest" of ten are whatever is there ("When was my first call-out?" grouped surfing,
# a cottage and Mum's move with the call-out, and gave the oldest). 0.05 cost two questions of the
# blind dev sets, 0.08 none.
MEANING_MARGIN = 0.08


@dataclass(frozen=True)
class Frame:
    states: frozenset[str]  # predicates, as the index has them
    names: frozenset[str]  # things put in a role (subject, object, place…)
    own: bool  # the user's own doing, not someone else's


@lru_cache(maxsize=4096)
def _morphs(text: str) -> tuple:
    """Kiwi's parse of a line, once: the frame, the names, whose line it is and what it changes into
    all read it, for the same memories search after search."""
    return tuple(morphemes(text))


@lru_cache(maxsize=4096)
def _parse(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    morphs = _morphs(text)
    if not morphs:
        return frozenset(), frozenset(), True
    states, names, own = set(), set(), True
    for i, (form, tag) in enumerate(morphs):
        kind = tag.split("-")[0]
        if kind in ("VV", "VA"):
            states.add(form)
        elif kind in ("XSV", "XSA") and i and morphs[i - 1][1].split("-")[0] in ("NNG", "NNP", "XR"):
            states.add(morphs[i - 1][0])  # 이사+하다: the noun states it
        elif kind == "EP" and form.lstrip("으") in ("시", "셨", "세"):
            own = False  # honorific: an elder's doing ("아버지는 아직도 … 사신다")
        if kind in ("NNG", "NNP") and i + 1 < len(morphs) and morphs[i + 1][1].startswith("J") \
                and morphs[i + 1][1] != "JKG":
            names.add(form)  # a noun with a case particle has a role; one before a noun only modifies it
    return frozenset(states), frozenset(names), own


def changes_into(text: str) -> bool:
    """The text says something changed into something: Korean "-(으)로 + verb" ("아이폰 16으로 갈아탔다",
    "로얄캐닌으로 바꿨다", "합정으로 옮겼다"), read from Kiwi's tags (the case particle followed by a
    verb), not from a list of verbs of change. "레이로 20분 걸린다" (a means, then a number) is not.
    English has no such mark here: False."""
    if not has_hangul(text):
        return False
    m = _morphs(text)
    return any(f in ("로", "으로") and t == "JKB" and i + 1 < len(m) and m[i + 1][1].startswith("VV")
               for i, (f, t) in enumerate(m))


def predicates(text: str) -> frozenset[str]:
    """What a Korean text states (Kiwi's verb and adjective stems, the noun of a 하다-verb); English:
    none told apart."""
    return _parse(text)[0] if has_hangul(text) else frozenset()


def time_words(text: str) -> frozenset[str]:
    """The index tokens of the words that say which time a question wants ("first", "now", "처음")."""
    return frozenset(tokenize(text)) - frozenset(tokenize(without_time(text)))


# An English line about someone by name: a capitalised first word, then 's with what follows it in a
# diary ("Mum's got", "Dani's still") or a verb of someone's doing ("Jonah reckons", "Tom took"). English
# has no parse here; these are grammar's words, not a list of kinds of things.
_EN_DOES = (r"(?:'s\s+(?:still|got|gone|been|now|just|also|not|never|finally|started|moved|decided|taken|"
            r"doing|joined|switched|quit|off|on|back|\w+ing)\b|\s+(?:reckons|says|thinks|gets|goes|has|is|was|does|works|"
            r"lives|still|just|also|got|took|quit|[a-z]+ed)\b)")  # [a-z]+ed: "started", "moved", "hired"…
# A diary line often starts with a word of time or manner, or with its own verb ("Finally moved into
# the flat", "Just started at the bank", "Got married"): no one's name, so the line stays the diarist's.
_EN_NOT_A_NAME = (r"(?!(?:Just|Still|Finally|Also|Today|Yesterday|Tonight|Then|Now|Already|Again|Recently|Eventually|"
                  r"Officially|Apparently|Luckily|Sadly|Suddenly|Never|Always|Only|Even|Maybe|Probably|Got|Had|Was|"
                  r"Were|Felt|Been|This|That|It|He|She|They|You)\b)")
_EN_SUBJECT = re.compile(r"^" + _EN_NOT_A_NAME + r"([A-Z][a-z]+)" + _EN_DOES)
# "My climbing partner Jess works as a vet", "Our neighbour Ken has moved": the named person's line,
# whose "my" says whose partner, not whose doing.
_EN_MY_SUBJECT = re.compile(r"^(?:My|Our)\s+(?:[a-z][\w-]*\s+){1,3}([A-Z][a-z]+)" + _EN_DOES)
_WHO = re.compile(r"누구|누가|\bwho(?:m|se)?\b", re.I)
_KO_ME = ("나", "내", "저", "제", "우리")


def whose(text: str) -> str | None:
    """Whose line it is, when not the diarist's: the words of its holder, or None (the diarist, or no
    one said). Korean, from Kiwi's tags:
    - a topic or subject before the line's first verb that names someone: a name with its -이
      ("서진이는"), or a word of address ("누나가", "영호형이"). Not any proper noun: brands and places
      are proper nouns too ("갤럭시는", "망원동에서는"), and a thing is a topic as often as a person
      ("골프는 돈이 들어서 접고");
    - a subject counts only for a doing the line goes on with ("영호형이 회사를 그만두고 …"): of how
      something is ("누나가 아파서") or of a reason, it is the setting of the diarist's own doing;
    - a report of news that names someone ("유나 남친이랑 결혼한대"); a report about the diarist's own
      thing ("폴더폰 … 아직 쓸 만하다 함", the shop's word) names no one and stays theirs.
    English: _EN_SUBJECT."""
    if has_hangul(text):
        m = _morphs(text)
        holder = _topic(m)
        if holder is None and _reported(m):
            holder = next((f for f, t in m if t == "NNP"), None)  # "유나 남친이랑 결혼한대"
        return holder
    found = _EN_SUBJECT.match(text) or _EN_MY_SUBJECT.match(text)
    return found.group(1) if found and found.group(1) not in ("I", "My", "We", "Our") else None


_HEARD_ENDINGS = ("ᆫ대", "는대", "대", "래", "ᆫ다네", "는다네", "다네", "라네", "ᆫ대요", "대요")
_HEARD_BEFORE = ("ᆫ다", "는다", "다", "다고", "ᆫ다고", "는다고", "라고", "래")


def _reported(m: tuple) -> bool:
    for i, (form, tag) in enumerate(m):
        if tag == "EF" and form in _HEARD_ENDINGS:
            return True
        if tag == "EC" and form in _HEARD_BEFORE and i + 1 < len(m) and m[i + 1] == ("하", "VV"):
            return True  # "다닌다 함", "간다고 했다"
    return False


# Endings that go on with the same doer ("그만두고", "다니면서"): any other connective makes its clause
# the reason, condition or setting of the one after it.
_SAME_DOER = ("고", "며", "으며", "면서", "으면서")


def _main_clause(m: tuple, start: int) -> bool:
    """The subject at `start` is of an action clause the line goes on with, not a state or a setting."""
    at = next((j for j in range(start, len(m)) if m[j][1].startswith(("VV", "VA", "XSV", "XSA"))), None)
    if at is None or m[at][1].startswith(("VA", "XSA")):
        return False  # how a thing is ("무릎이 아파서")
    ending = next(((f, t) for f, t in m[at + 1:] if t.startswith("E") and t != "EP"), None)
    return ending is None or ending[1] != "EC" or ending[0] in _SAME_DOER


# Words that follow a person's name or stand for one in address ("민수 씨", "영호형", "지은 언니").
_ADDRESS = ("씨", "님", "형", "언니", "오빠", "누나", "쌤")


def _a_person(phrase: tuple) -> bool:
    """A name with its -이 ("서진이는"; Kiwi often keeps the -이 inside the proper noun: "병철이는") or a
    word of address in a topic's words. Not a word of relation before a proper noun ("동기 민재가"):
    "우리 동네 스타벅스가" has the same shape."""
    if any(t == "NNP" and len(f) >= 3 and f.endswith("이") for f, t in phrase):
        return True
    return any((f, t) == ("이", "XSN") or (f in _ADDRESS and t.startswith("NN")) for f, t in phrase)


def _topic(m: tuple) -> str | None:
    for i, (form, tag) in enumerate(m[:8]):
        if tag in ("JX", "JKS") and form in ("은", "는", "이", "가") and not (i and m[i - 1][1].startswith("J")):
            # (after a case particle it marks a place or a time as the topic: "망원동에서는 …")
            head = [f for f, t in m[:i] if t.startswith(("NN", "NR", "SL", "SH"))]
            if not head or head[0] in _KO_ME or not _a_person(m[:i]):
                return None
            if tag == "JKS" and not _main_clause(m, i + 1):
                return None  # the setting of the diarist's own doing: "무릎이 아파서", "비가 와서"
            return " ".join(head)
        if tag.startswith(("V", "E", "XSV", "XSA")):
            return None
    return None


def mine(text: str, question: str) -> bool:
    """Whether a line can be a version of the state a question asks about: only a line naming them
    when the question opens on someone else ("언니네 요즘 어디 살지?": asked_of); not an elder's doing
    (own) unless the question asks about an elder too ("엄마 요새 뭐 배우러 다니셔?": its honorific says so),
    and not someone else's by name ("서진이는 아직도 클라이밍 다닌대" for "요새 무슨 운동 해?") unless the
    line also says I/me/내/우리 ("Karen moved in with me"), the question names that person, or it asks
    who ("지금 가게 알바는 누구야?": a person is the answer)."""
    if not own(text) and own(question):
        return False
    held = asked_of(question)
    if held:  # a question about someone else: only a line that names them is a version of theirs
        return any(form in text for form in held)
    if _WHO.search(question) or _says_me(text):
        return True
    who = whose(text)
    return who is None or any(w.lower() in question.lower() for w in who.split())


# Family words a Korean question opens on when it asks about that person ("엄마 지금 어디 사셔?"). Not
# 친구 or 동료: Kiwi splits 남자친구 into 남자 + 친구, and a friend is asked about by name.
_KIN = frozenset("엄마 아빠 어머니 아버지 어머님 아버님 남편 아내 와이프 동생 언니 누나 형 오빠 아들 딸 할머니 "
                 "할아버지 이모 삼촌 고모 외삼촌 형부 매형 조카 시어머니 시아버지 장모님 장인어른".split())
# Words of time a question opens with ("지금", "요즘도"): not whom it asks about.
_QUESTION_TIME = frozenset("요즘 지금 이제 요새 아직 현재 예전 처음 원래".split())


@lru_cache(maxsize=1024)
def asked_of(question: str) -> tuple[str, ...]:
    """Whom a Korean question asks about when it opens on someone else, as a line would name them:
    a family word ("언니네 요즘 어디 살지?", "엄마 지금 어디 사셔?") or a given name ("민호 이제 어디서 살아?",
    "우람이 지금 회사 어디 다니지?" -> 우람이, 우람) before its particle or its word of time. Empty for a
    question about the diarist ("요즘 어디 살아?", "나 요즘 어디 살지?"). Such a question's versions are
    that person's lines: before this the diarist's own newer move answered "언니네 요즘 어디 살지?"."""
    if not has_hangul(question):
        return ()
    m = _morphs(question)
    phrase: list[tuple[str, str]] = []
    for form, tag in m[:6]:
        if (tag.startswith("NN") and form not in _QUESTION_TIME) or tag == "XSN":
            phrase.append((form, tag))
            continue
        break
    heads = [f for f, t in phrase if t.startswith("NN")]
    if not heads or heads[0] in _KO_ME or len(phrase) == len(m):
        return ()
    after = m[len(phrase)]
    # a name is followed by its particle, a word of time or an adverb ("민호 이제", "하린이 지금"), or
    # carries -네 ("언니네"); a noun before another verb or noun is what the question asks about
    if not (after[1] in ("JKS", "JX", "JKG", "MAG") or after[0] in _QUESTION_TIME
            or any(t == "XSN" for _, t in phrase)):
        return ()
    forms = {f for f in heads if f in _KIN}
    for at, (f, t) in enumerate(phrase):
        rest = [g for g, u in phrase[at + 1:] if u.startswith("NN")]
        # a name ends the phrase or is followed by a word of address ("은호 오빠"); before another
        # noun a proper noun names a thing ("스페인어 공부는")
        if t == "NNP" and has_hangul(f) and (not rest or rest[0] in _KIN or rest[0] in _ADDRESS):
            forms.add(f)
            if len(f) >= 3 and f.endswith("이"):
                forms.add(f[:-1])  # Kiwi keeps a name's -이 inside it ("우람이"); a line may say 우람
    return tuple(sorted(f for f in forms if len(f) >= 2))


def _says_me(text: str) -> bool:
    if has_hangul(text):
        return any(t == "NP" and f in _KO_ME for f, t in _morphs(text))
    found = _EN_MY_SUBJECT.match(text)
    return bool(_FIRST_PERSON.search(text[found.end(1):] if found else text))


def own(text: str) -> bool:
    """Not someone else's doing as the text says it (a Korean honorific: "아버지는 … 사신다")."""
    return not has_hangul(text) or _parse(text)[2]


def frame(text: str, tokens: Iterable[str]) -> Frame:
    """What a text states and names, as index tokens (`tokens`: the text's own)."""
    tokens = set(tokens)
    if not has_hangul(text):
        return Frame(frozenset(tokens), frozenset(tokens), True)  # no parser for English: its content words
    states, names, own = _parse(text)
    # Kiwi's forms and the index's tokens agree for stems and nouns; what the index drops (하, 있…)
    # carries no topic. English words in a Korean line are content words.
    other = {t for t in tokens if not has_hangul(t)}
    return Frame(frozenset((states & tokens) | other), frozenset((names & tokens) | other), own)


_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'-]+)")


def entities(text: str) -> set[str]:
    """The names a text has (Kiwi's proper nouns; in English, capitalised words not opening a
    sentence): what tells two versions of one thing apart, or makes two lines one version."""
    if has_hangul(text):
        return {form for form, tag in _morphs(text) if tag == "NNP"} | \
            {m.lower() for m in _CAPITALISED.findall(text) if m != "I"}
    return {m.lower() for m in _CAPITALISED.findall(text) if m not in ("I", "I'm", "I've")}


def without_time(text: str) -> str:
    """`text` less its words of time ("요즘", "처음", "these days", "used to"): they ask when, not what."""
    return _TIME.sub(" ", text)


def asked(text: str) -> Frame:
    """The question's frame, less its words of time (they ask when, not what: "요즘", "these days")."""
    timeless = without_time(text)
    tokens = tokenize(timeless)
    f = frame(timeless, tokens)
    if has_hangul(text):
        # A Korean question rarely puts its thing in a role ("무슨 음악 들어?"): every noun it has counts.
        return Frame(f.states, f.names | frozenset(w for w in tokens if w not in f.states), True)
    return f


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|my|me|mine|we|our|us)\b", re.I)
# The present module's own markers of now, first and before.
_TIME = re.compile("|".join(p.pattern for p in (present._KO_NOW, present._EN_NOW, present._KO_FIRST, present._EN_FIRST,
                                                 present._KO_BEFORE, present._EN_BEFORE)), re.I)


def group(q_text: str, results: list[dict], tokens_of: dict[str, set[str]], doc_freq) -> tuple[set[str], set[str]]:
    """(the ids among `results` (ranked) that are versions of what the question asks about, the
    words that link another memory to them); nothing when the question's best-ranked memories
    state nothing of it. `doc_freq(words)` -> (memories, {word: memories that have it})
    (BM25Index.doc_freq)."""
    if not has_hangul(q_text):
        # English has no parse here: its content words, grouped, moved LoCoMo dev's present-tense
        # questions about events (all@1 37.3 -> 32.6); the list (states.py) stays its only reading.
        return set(), set()
    want = rare(asked(q_text), doc_freq)
    if not (want.states or want.names):
        return set(), set()
    frames = {r["id"]: rare(frame(r["memory"], tokens_of.get(r["id"], ())), doc_freq) for r in results[:SEED_DEPTH]}
    # What the question names decides when memories name it ("연봉" of "받는 연봉이 얼마야?"): a verb
    # alone (받다) is said of too many things; what it states, when nothing near the top names it.
    seeds: list[str] = []
    for key in (want.names, want.states):
        seeds = [r["id"] for r in results[:SEED_DEPTH]
                 if key and mine(r["memory"], q_text) and (frames[r["id"]].states | frames[r["id"]].names) & key]
        if seeds:
            break
    if not any(r["id"] in seeds for r in results[:ANCHOR]):
        return set(), set()
    links = set().union(*(frames[s].states for s in seeds))
    found = set(seeds) | {r["id"] for r in results[:SEED_DEPTH]
                          if mine(r["memory"], q_text) and frames[r["id"]].states & links}
    return (found, links) if len(found) > 1 else (set(), set())  # one memory is no change


def rare(f: Frame, doc_freq) -> Frame:
    n, df = doc_freq(f.states | f.names)
    most = max(FEW, RARE * n)
    keep = lambda ws: frozenset(w for w in ws if df.get(w, 0) <= most)  # noqa: E731
    return Frame(keep(f.states), keep(f.names), f.own)


def linked(text: str, tokens: set[str], links: set[str]) -> bool:
    """A memory brought in from the index: the user's own, stating (or, in English, having) a
    word that links the versions."""
    f = frame(text, tokens)
    return f.own and bool((f.states if has_hangul(text) else f.names) & links)


def marked(text: str) -> bool:
    """The question says which time it wants ("요즘", "지금", "처음", "now", "these days", "still",
    "used to", "before"). Without the list's words to say a question is about a state, only such a
    question is read as one: a plain present-tense question ("What do I do for fun?") is as often a
    paraphrase of one memory, and grouping its best matches cost the project's paraphrase questions
    (ko→ko hit@1 32.6 -> 31.9; en→en hit@5 80 -> 50, en→ko hit@1 55.0 -> 50.0)."""
    return bool(_TIME.search(text))


def about_the_diarist(text: str) -> bool:
    """A Korean question leaves its subject out; an English one about the user says I, my, we…
    ("Where does Caroline live?" asks about someone else's state, not the diarist's)."""
    return bool(has_hangul(text) or _FIRST_PERSON.search(text))


def by_meaning(q_text: str, qvec, results: list[dict], vecs: dict) -> set[str]:
    """English: the memories that answer the question together (no parse of English here). Among
    the best-ranked, those close in meaning both to the question and to the centre of its best
    matches: the versions of one thing are near each other as well as near the question, where a
    memory that only shares the question's words is near the question alone. Only for a question
    about the diarist ("Where do I work now?"): one about someone else ("What is Caroline's job?",
    LoCoMo) is no question about a state of the user's, and grouping there cost LoCoMo dev's all@1
    7 points."""
    if has_hangul(q_text) or not _FIRST_PERSON.search(q_text) or qvec is None:
        return set()
    return meaning_group(qvec, results, vecs)


def meaning_group(qvec, results: list[dict], vecs: dict) -> set[str]:
    """by_meaning's group among `results` (ranked), for any question."""
    cands = [r for r in results[:MEANING_DEPTH] if r["id"] in vecs]
    if len(cands) < 3:
        return set()
    mat = np.stack([np.asarray(vecs[r["id"]], dtype=np.float64) for r in cands])
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
    qv = np.asarray(qvec, dtype=np.float64)
    near_question = mat @ (qv / (np.linalg.norm(qv) or 1.0))
    centre = mat[np.argsort(-near_question)[:CENTRE]].mean(axis=0)
    near_centre = mat @ (centre / (np.linalg.norm(centre) or 1.0))
    both = standardized(near_question) + standardized(near_centre)
    close = near_question >= near_question.max() - MEANING_MARGIN
    group = {cands[i]["id"] for i in np.argsort(-both)[:GROUP] if close[i]}
    return group if len(group) > 1 else set()


def standardized(a: np.ndarray) -> np.ndarray:
    """Each value as standard deviations from the mean of `a` (pool-relative, whatever the model's scale)."""
    return (a - a.mean()) / (a.std() + 1e-9)
