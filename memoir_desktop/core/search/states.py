"""What a state is about: where the user lives, works or studies, who they are with, a pet, a
habit, a phone or a car — the things of a life that change and whose newest version is the answer
to "요즘 어디 살아?".

Similarity cannot group the versions of one such state: multilingual-e5 scores "분당으로 이사했다"
against "서울 마포구로 이사했다" (0.95) as it scores it against "분당 친구 집에 놀러 갔다" (0.94).
What the versions share is the predicate that states the thing (살다, 이사, 입사, 사귀다, 키우다,
live, move, work at…), so an aspect is recognised by its words, Korean morphemes and English stems
as the lexical index already has them (core/lexical/tokens.py):
- `alone`: a word that states the aspect by itself (이사, 입사, 금연, vegan);
- `objects` + `verbs`: a thing and what one does with it, both needed in a memory (회사 + 다니,
  고양이 + 키우, phone + use): "회사에서 회의가 길었다" mentions work but states no job;
- a question names the aspect by any of these words ("회사 어디야?", "고양이 있어?").
The aspects are the ordinary kinds of change in a life, in both languages; the list is not drawn
from any evaluation set. Measured by `python -m memoir_desktop.eval.trust_retrieval`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from memoir_desktop.core.lexical import tokenize


@dataclass(frozen=True)
class Aspect:
    name: str
    alone: frozenset[str]
    objects: frozenset[str] = frozenset()
    verbs: frozenset[str] = frozenset()
    asks: frozenset[str] = frozenset()  # words only a question uses for it (어디 살아 → 살 is in alone)

    def stated_by(self, tokens: set[str]) -> bool:
        return bool(tokens & self.alone) or (bool(tokens & self.objects) and bool(tokens & self.verbs))

    def asked_by(self, tokens: set[str]) -> bool:
        return bool(tokens & (self.alone | self.objects | self.asks))


def _words(text: str) -> frozenset[str]:
    """Cue words as the index has them: each word through the tokenizer (stems, morphemes)."""
    out: set[str] = set()
    for word in text.split():
        out.update(tokenize(word))
    return frozenset(out)


_TABLE = (
    # name, alone, objects, verbs, asks
    ("home", "살 이사 거주 자취 입주 이주 전세 월세 하숙 기숙사 live lives lived living moved relocated reside",
     "집 아파트 원룸 투룸 오피스텔 빌라 동네 house apartment flat place neighborhood",
     "구하 계약 옮기 rent bought", ""),
    ("work", "입사 퇴사 이직 취직 취업 재직 근무 직장 직업 백수 프리랜서 job employed unemployed hired freelance "
     "career", "회사 직장 스타트업 사무실 가게 company office startup firm bakery store",
     "다니 일하 옮기 그만두 들어가 work works worked join joined quit left started",
     "일 work"),
    ("school", "입학 졸업 휴학 복학 전학 재학 대학원 유학 학년 graduated enrolled semester major",
     "학교 대학 대학교 학원 school university college",
     "다니 들어가 그만두 attend attends study studies", ""),
    ("partner", "사귀 연애 헤어지 이별 결혼 이혼 약혼 재혼 dating married divorced engaged single broke breakup",
     "남자친구 여자친구 남친 여친 애인 남편 아내 boyfriend girlfriend partner husband wife fiance",
     "만나 사귀 헤어지 see seeing", "사귀 연애 dating"),
    ("pet", "입양 반려 adopted", "고양이 강아지 반려견 반려묘 햄스터 앵무새 cat dog puppy kitten pet",
     "키우 기르 데려오 입양 have has got adopted", ""),
    ("smoking", "담배 흡연 금연 전자담배 smoke smoking smoker cigarettes vape", "", "", ""),
    ("drinking", "금주 음주 sober", "술 alcohol drinking", "끊 줄이 quit stopped", ""),
    ("phone", "", "폰 휴대폰 핸드폰 스마트폰 아이폰 갤럭시 phone iphone galaxy pixel smartphone",
     "쓰 사 바꾸 구입 장만 use uses bought switched got upgraded", ""),
    ("car", "", "차 자동차 중고차 전기차 car tesla", "사 타 몰 바꾸 팔 bought drive drives sold leased", ""),
    ("diet", "채식 비건 식단 다이어트 vegan vegetarian keto diet", "", "", ""),
    ("exercise", "", "헬스 요가 필라테스 수영 러닝 클라이밍 테니스 골프 복싱 크로스핏 gym yoga pilates swimming "
     "climbing tennis golf boxing running",
     "다니 시작 등록 배우 그만두 끊 joined started quit taking", ""),
)


@lru_cache(maxsize=1)
def aspects() -> tuple[Aspect, ...]:
    # Built on first use: the tokenizer (Kiwi) loads then, not at import.
    return tuple(Aspect(name, _words(alone), _words(objects), _words(verbs), _words(asks))
                 for name, alone, objects, verbs, asks in _TABLE)


def asked(tokens: Iterable[str]) -> list[Aspect]:
    """The aspects a question names ("요즘 어디 살아?" → home)."""
    have = set(tokens)
    return [a for a in aspects() if a.asked_by(have)]


def aspect_of(tokens: Iterable[str], wanted: Iterable[Aspect]) -> Aspect | None:
    """The first of `wanted` that a memory's words state."""
    have = set(tokens)
    return next((a for a in wanted if a.stated_by(have)), None)


def newest_first(results: list[dict], member: dict[str, str]) -> list[dict]:
    """The question names the state: its newest version comes first (the answer to a question about
    now), its older versions keep the places its versions had, newest first below it. With
    several states named, their newest come first in the order their best versions were ranked.
    `member`: memory id -> aspect name."""
    groups: dict[str, list[int]] = {}
    for at, r in enumerate(results):
        name = member.get(r["id"])
        if name is not None:
            groups.setdefault(name, []).append(at)
    out = list(results)
    top: list[dict] = []
    for name, places in groups.items():  # in the order of each state's best ranked version
        if len(places) < 2:
            continue
        ordered = sorted((results[p] for p in places), key=lambda r: r["created_at"], reverse=True)
        for rank, r in enumerate(ordered):
            r["explain"]["state"] = {"aspect": name, "newest": rank == 0}
        top.append(ordered[0])
        for p, r in zip(places, [None, *ordered[1:]], strict=True):
            out[p] = r
    return top + [r for r in out if r is not None]
