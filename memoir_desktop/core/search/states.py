"""What a state is about: where the user lives, works or studies, who they are with, a pet, a
habit, a phone or a car — the things of a life that change and whose newest version is the answer
to "요즘 어디 살아?".

Similarity cannot group the versions of one such state: multilingual-e5 scores "분당으로 이사했다"
against "서울 마포구로 이사했다" (0.95) as it scores it against "분당 친구 집에 놀러 갔다" (0.94).
What the versions share is the word that states the thing (살다, 이사, 입사, 사귀다, 키우다, live,
move, work at…), so an aspect is recognised by its words:
- `alone`: a word that states the aspect by itself (이사, 입사, 금연, vegan);
- `objects` + `verbs`: a thing and what one does with it, both needed (회사 + 다니다, 고양이 +
  키우다, phone + use): "회사에서 회의가 길었다" mentions work but states no job;
- a habit with a thing the question names ("요즘도 커피 마셔?"): that thing with a verb of
  having or giving it up (마시다, 끊다, 대신, drink, quit…) is its own aspect;
- a question names an aspect by any of its words ("회사 어디야?", "어디 다녀?", "고양이 있어?"), unless
  it names it only by a verb and names another thing that verb is done to ("요즘 쓰는 토너 뭐야?" asks
  about a toner, not the phone 쓰다 reads; "before I got the Cintiq", not a pet).
Korean is read from Kiwi's morphemes, not from the search tokens: a word must be what it is in the
sentence (살다 the verb, not 살 in "살살"; 결혼 itself, not the 결혼식 of a friend) and stated, not
reported or wished ("결혼한다는 소식", "입양하고 싶어 한다"). The aspects are the ordinary kinds of
change in a life, in both languages; the list is not drawn from any evaluation set.
Measured by `python -m memoir_desktop.eval.trust_retrieval` (its part 3).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.lexical.tokens import morphemes

_VERB_TAGS = ("VV", "VA", "XSV", "XSA")
_NOUN_TAGS = ("NNG", "NNP", "XR", "SL")
_REPORTED = ("다는", "ᆫ다는", "는다는", "다던", "냐는")  # "결혼한다는 소식": someone else's news


@dataclass(frozen=True)
class Aspect:
    name: str
    alone: frozenset[str]
    objects: frozenset[str] = frozenset()
    verbs: frozenset[str] = frozenset()
    asks: frozenset[str] = field(default=frozenset())  # words only a question uses for it
    phrase: re.Pattern | None = None  # English word groups that state it ("work at", "moved in with")
    led: frozenset[str] = frozenset()  # words of its phrases a version is looked for by (_PHRASES)

    @property
    def cues(self) -> frozenset[str]:
        return self.alone | self.objects | self.verbs

    def stated_by(self, words: set[str], text: str = "", where: frozenset[str] = frozenset()) -> bool:
        """`where`: the nouns of a Korean line found only before a noun of place relative to them
        (_only_where). Such a noun says where ("집 앞 어린이집으로 옮겼다": a nursery changed, no home),
        not the thing this kind's verb is done to."""
        things = (words & self.objects) - where
        return (bool(words & self.alone) or (bool(things) and bool(words & self.verbs))
                or bool(self.phrase and self.phrase.search(text)))

    def asked_by(self, tokens: set[str]) -> bool:
        return bool(tokens & (self.alone | self.objects | self.verbs | self.asks))


def _words(text: str) -> frozenset[str]:
    """Cue words as the index has them (a verb given as "살다" is its stem 살, an English word its
    stem): each word through the tokenizer."""
    out: set[str] = set()
    for word in text.split():
        out.update(tokenize(word)[:1])  # the word itself, not the parts of a compound (계약직 ≠ 계약)
    return frozenset(out)


_TABLE = (
    # name, alone, objects, verbs, asks
    ("home", "살다 이사 거주 자취 입주 이주 전세 월세 하숙 기숙사 live lives lived living reside",
     "집 아파트 원룸 투룸 오피스텔 빌라 동네 house apartment flat neighborhood",
     "구하다 계약 옮기다 rent bought", "사다 move moved relocated"),
    # Kiwi reads the 사는 of "지금 사는 곳" as 사다. "moved" alone is no home in a memory ("Chess club
    # moved to Mondays", "moved my dentist appointment"): there a move is "moved to/into/out…" (_PHRASES).
    ("work", "입사 퇴사 이직 취직 취업 재직 근무 직장 직업 백수 프리랜서 정규직 계약직 job employed unemployed "
     "hired freelance career", "회사 스타트업 사무실 연구소 가게 company office startup firm studio store",
     "다니다 일하다 옮기다 그만두다 들어가다 work works worked working join joined quit left started", "일"),
    ("school", "입학 졸업 휴학 복학 전학 재학 대학원 유학 학년 graduated enrolled semester major",
     "학교 대학 대학교 학원 school university college", "다니다 들어가다 그만두다 attend attends study studies",
     ""),
    ("partner", "사귀다 연애 헤어지다 이별 결혼 이혼 약혼 재혼 동거 파혼 dating married divorced engaged single "
     "broke breakup separated separating", "남자친구 여자친구 남친 여친 애인 남편 아내 boyfriend girlfriend "
     "partner husband wife fiance", "만나다 사귀다 헤어지다 see seeing", "사람"),
    ("pet", "입양 adopted", "고양이 강아지 반려견 반려묘 햄스터 앵무새 동물 cat dog puppy kitten pet",
     "키우다 기르다 데려오다 입양 got adopted", ""),
    ("smoking", "담배 흡연 금연 전자담배 smoke smoking smoker cigarettes vape vaping", "", "", ""),
    ("drinking", "금주 음주 sober", "술 소주 맥주 와인 alcohol drinking beer wine", "마시다 끊다 줄이다 quit stopped",
     ""),
    ("phone", "", "폰 휴대폰 핸드폰 스마트폰 아이폰 갤럭시 phone iphone galaxy pixel smartphone",
     "쓰다 사다 바꾸다 구입 장만 use uses using bought switched got upgraded", ""),
    ("car", "", "차 자동차 중고차 전기차 car tesla", "사다 타다 몰다 바꾸다 팔다 bought drive drives sold leased",
     ""),
    ("diet", "채식 비건 식단 다이어트 vegan vegetarian keto diet", "", "", ""),
    ("exercise", "", "운동 헬스 요가 필라테스 수영 러닝 클라이밍 테니스 골프 복싱 크로스핏 gym yoga pilates "
     "swimming climbing tennis golf boxing running", "다니다 시작 등록 배우다 그만두다 끊다 joined started quit "
     "taking", ""),
)
# Having a thing or giving it up: with a thing the question names, a habit of its own.
_HABIT_VERBS = "마시다 먹다 피우다 끊다 줄이다 대신 바꾸다 drink drinks eat eats quit stopped switched instead"


# name: (the phrases, the words of those not in `alone` that a version is looked for by: "moved" is
# common beyond moves, and the newest lines with it could crowd the versions out of those brought in,
# but without it "My cousin Ari moved into the spare room" was no longer found; "work" is commoner still)
_PHRASES = {
    "home": (r"\blive[sd]?\s+(?:in|at|with|on)\b|\bmov(?:e|ed|ing)\s+(?:to|into|in|back|out)\b"
             r"|\brelocat(?:e|ed|ing)\s+to\b", "moved relocated"),
    "work": (r"\bwork(?:s|ed|ing)?\s+(?:at|as|for|in)\b|\bjob\s+(?:at|as)\b|\bhired\s+(?:at|by|as)\b", ""),
    "partner": (r"\bbroke\s+up\b|\bmoved\s+in\s+with\b|\bsplit\s+up\b", ""),
}


# English words of a kind used in a phrase that means something else: "what does Wes do for a
# living" asks about a job, not a home; "a live jazz trio" is no home; "did a great job on the fence"
# is no job. (stem replaced, stem put instead or None, pattern)
_IDIOMS = (
    ("live", "work", re.compile(r"\bfor\s+a\s+living\b", re.I)),
    ("live", None, re.compile(r"\b(?:a|an|the)\s+live\b", re.I)),
    ("job", None, re.compile(r"\b(?:good|great|nice|fine|decent|lovely|amazing|terrible|bad|poor)\s+job\b", re.I)),
)


def _without_idioms(text: str, tokens: Iterable[str]) -> set[str]:
    """`tokens` with the words of _IDIOMS read as what the phrase means, where the text has no other
    use of the word."""
    out = set(tokens)
    for stem, instead, pattern in _IDIOMS:
        if stem in out and pattern.search(text):
            rest = pattern.sub(" ", text)
            if stem not in tokenize(rest):
                out.discard(stem)
            if instead:
                out.add(instead)
    return out


@lru_cache(maxsize=1)
def aspects() -> tuple[Aspect, ...]:
    # Built on first use: the tokenizer (Kiwi) loads then, not at import.
    return tuple(Aspect(name, _words(alone), _words(objects), _words(verbs), _words(asks),
                        re.compile(_PHRASES[name][0], re.I) if name in _PHRASES else None,
                        _words(_PHRASES[name][1]) if name in _PHRASES else frozenset())
                 for name, alone, objects, verbs, asks in _TABLE)


@lru_cache(maxsize=1)
def _verb_stems() -> frozenset[str]:
    """Korean cues given as verbs ("살다"): read only as verbs, never as a noun of the same letters
    (살 in "살살", "살이 빠졌다")."""
    table = " ".join(" ".join(row[1:]) for row in _TABLE) + " " + _HABIT_VERBS
    return frozenset(t for w in table.split() if w.endswith("다") for t in tokenize(w))


@lru_cache(maxsize=1)
def _habit_verbs() -> frozenset[str]:
    return _words(_HABIT_VERBS)


# Words of time and amount a question has that are no thing one has ("하루에 몇 잔", "these days").
_NOT_THINGS = "요즘 요새 지금 하루 매일 오늘 이제 아직 현재 최근 번 잔 개 얼마 정도 still now day days today lately much many"


@lru_cache(maxsize=1)
def _not_things() -> frozenset[str]:
    return _words(_NOT_THINGS)  # once: each word goes through Kiwi (0.5 ms a question when it was not kept)


@lru_cache(maxsize=1)
def _aspect_verbs() -> frozenset[str]:
    return frozenset().union(*(a.verbs for a in aspects()))


def asked(text: str, tokens: Iterable[str]) -> list[Aspect]:
    """The aspects a question names ("요즘 어디 살아?" → home), and a habit for each thing it names
    with a verb of having it ("요즘도 커피 마셔?" → the coffee habit). A word it sets as the place of
    what it asks names none ("요즘 회사에서 치는 키보드 뭐였지?" asks about a keyboard, not a job)."""
    have = _without_idioms(text, tokens)
    morphs = morphemes(text)  # once: Kiwi is the costly part of reading a question
    done_to = _named_things(morphs) | _named_in_english(text)
    found = [a for a in aspects() if a.asked_by(have - _settings(morphs, have))
             and not (done_to and not have & (a.alone | a.objects) and not done_to & (a.cues | a.asks))]
    if have & _habit_verbs():
        named = set().union(*(a.cues for a in aspects())) | _habit_verbs() | _not_things()
        things = {f for f, t in morphs if t in ("NNG", "NNP")} if morphs else have
        found += [Aspect(f"habit:{t}", frozenset(), frozenset({t}), _habit_verbs())
                  for t in sorted((things & have) - named)]
    return found


def _named_things(morphs: list[tuple]) -> set[str]:
    """The things a Korean question names as what its verb is done to: the noun a verb's clause
    ends on ("요즘 쓰는 토너", "지금 사는 집"), its object ("차를 바꿨어"), or the noun just before it
    ("어느 회사 다녀", "스쿠터 아직 타고 다녀"). A kind the question reads only from such a verb (쓰다: a phone,
    다니다: a job) is not asked when the verb is done to another thing: "요즘 쓰는 토너 뭐야?" asks
    about a toner, and a line about a phone answered it."""
    out: set[str] = set()
    skip = _not_things()
    for i, (_, tag) in enumerate(morphs):
        if tag.split("-")[0] not in ("VV", "XSV"):
            continue
        if i + 2 < len(morphs) and morphs[i + 1][1] == "ETM" and morphs[i + 2][1] in ("NNG", "NNP"):
            out.add(morphs[i + 2][0])
        if tag.startswith("XSV"):
            continue  # the noun before 하다 is the verb's own (출근하다, 사용하다), not what it is done to
        j = i - 1
        while j >= 0 and (morphs[j][1] in ("MAG", "JX", "JKO") or morphs[j][0] in skip):
            j -= 1  # "스쿠터 아직 타고", "택시 지금도 몰아", "차를 바꿨어"
        if j >= 0 and morphs[j][1] in ("NNG", "NNP"):
            out.add(morphs[j][0])
    return {t for t in out if t not in skip and t not in _PLACE_WORDS}


# "Which bank do I use now?", "What kind of mask am I using?": the noun after what/which is the thing
# asked about, unless what/which asks by itself ("What do I drive?").
_EN_WHICH = re.compile(r"\b(?:what|which)\s+(?:(?:kind|sort|type|make|brand)\s+of\s+)?([a-z][\w-]*)", re.I)
_EN_NOT_NAMED = frozenset("do does did am is are was were have has had can could will would should i we you he "
                          "she they it my our your his her their the a an".split())


# "before I got the Cintiq", "since I bought a secondhand Honda": a kind's verb and the thing it is
# done to (the word after the article, and the next, which may be the noun after an adjective).
_EN_OBJECT = re.compile(r"\b([a-z]+)\s+(?:the|a|an|my|our|his|her|their)\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?", re.I)


def _named_in_english(text: str) -> set[str]:
    """The thing an English question names with what/which ("Which bank do I use now?" asks about a
    bank, not the phone that "use" would read) or as the object of a kind's verb ("before I got the
    Cintiq": a tablet, not the pet that "got" would read)."""
    out: set[str] = set()
    for word in _EN_WHICH.findall(text):
        if word.lower() not in _EN_NOT_NAMED:
            out.update(tokenize(word)[:1])
    for verb, *objects in _EN_OBJECT.findall(text):
        if set(tokenize(verb)) & _aspect_verbs():
            out.update(t for word in objects if word for t in tokenize(word)[:1])
    return out


# "지금 사는 곳": the place itself, which the verb's kind is about; "출근할 때": a time, no thing.
_PLACE_WORDS = frozenset({"곳", "데", "때"})


def _settings(morphs: list[tuple], have: set[str]) -> set[str]:
    """Nouns a Korean question (`morphs`: its Kiwi parse) puts as the place of what it asks
    ("회사에서 치는 키보드": 에서, 에)."""
    return {morphs[i][0] for i in range(len(morphs) - 1)
            if morphs[i][1] in ("NNG", "NNP") and morphs[i + 1] in (("에서", "JKB"), ("에", "JKB"))} & have


# Nouns of place relative to a thing ("집 앞", "회사 근처"): the thing before them names where, not
# what is had or done. Grammar's words, not kinds of things.
_WHERE_OF = frozenset("앞 뒤 옆 근처 주변 건너편 맞은편 안 밖 위 아래 쪽 사이 부근 인근".split())


def _only_where(morphs: list[tuple]) -> frozenset[str]:
    """The nouns found only right before a noun of place relative to them ("집 앞 어린이집으로
    옮겼다": the nursery in front of the house)."""
    before: set[str] = set()
    alone: set[str] = set()
    for i, (form, tag) in enumerate(morphs):
        if tag.split("-")[0] not in ("NNG", "NNP"):
            continue
        nxt = morphs[i + 1] if i + 1 < len(morphs) else None
        placed = nxt is not None and nxt[1].split("-")[0] in ("NNG", "NNB") and nxt[0] in _WHERE_OF
        (before if placed else alone).add(form)
    return frozenset(before - alone)


def stated_words(morphs: list[tuple], tokens: Iterable[str]) -> set[str]:
    """The words a memory states (`morphs`: its Kiwi parse): for Korean, each morpheme as what it is
    (a verb's stem, a whole noun) unless it is reported or wished; other text, its search tokens."""
    if not morphs:
        return set(tokens)
    out = {t for t in tokens if not any("\uac00" <= c <= "\ud7a3" for c in t)}  # English words in it
    for i, (form, tag) in enumerate(morphs):
        kind = tag.split("-")[0]
        if kind in _NOUN_TAGS and form in _verb_stems():
            continue
        if kind in _VERB_TAGS or kind in _NOUN_TAGS:
            after = morphs[i + 1:i + 5]
            if any(t == "ETM" and f in _REPORTED for f, t in after) or _wished(after):
                continue
            out.add(morphs[i - 1][0] if kind in ("XSV", "XSA") and i else form)  # 입양+하 → 입양
    return out


def _wished(after: list[tuple[str, str]]) -> bool:
    """"입양하고 싶다", "이사할까 고민": a wish or a plan, not a state."""
    forms = [f for f, _ in after]
    return "싶" in forms or "고민" in forms


def aspect_of(text: str, tokens: Iterable[str], wanted: Iterable[Aspect]) -> Aspect | None:
    """The first of `wanted` that a memory states."""
    tokens = _without_idioms(text, tokens)
    wanted = [a for a in wanted if tokens & a.cues or (a.phrase and a.phrase.search(text))]  # cheap first
    if not wanted:
        return None
    morphs = morphemes(text)
    words, where = stated_words(morphs, tokens), _only_where(morphs)
    return next((a for a in wanted if a.stated_by(words, text, where)), None)


def latest(versions: list[dict]) -> dict:
    """The version recorded last. Of several recorded at one moment (one entry's memories share its
    time), the first in `versions`' order, the best ranked: the last of a sort by time alone was the
    worst ranked of them ("검진비가 32만 원 나왔다" before the new food of the same entry)."""
    last = max(v["created_at"] for v in versions)
    return next(v for v in versions if v["created_at"] == last)


def answer_first(results: list[dict], member: dict[str, str], pick) -> list[dict]:
    """Each named state's answering version first (`pick` chooses it from the versions, oldest to
    newest), its other versions in the places its versions had, newest first. With several states
    named, their answers come in the order their best versions were ranked. `member`: memory id ->
    aspect name."""
    groups: dict[str, list[int]] = {}
    for at, r in enumerate(results):
        name = member.get(r["id"])
        if name is not None:
            groups.setdefault(name, []).append(at)
    out: list[dict | None] = list(results)
    top: list[dict] = []
    for name, places in groups.items():  # in the order of each state's best ranked version
        versions = sorted((results[p] for p in places), key=lambda r: r["created_at"])
        answer, newest = pick(versions), latest(versions)
        for r in versions:
            r["explain"]["state"] = {"aspect": name, "answer": r is answer, "newest": r is newest,
                                     "versions": len(versions)}
        top.append(answer)
        rest = [r for r in reversed(versions) if r is not answer]
        for p, r in zip(places, [None, *rest], strict=True):
            out[p] = r
    return top + [r for r in out if r is not None]
