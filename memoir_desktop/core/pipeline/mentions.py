"""The graph a journal draws without an AI: who and what its entries name, read from the text itself.

An AI's graph (graph.py) says how things relate ("지수 —동생→ 나"); without one, or for the entries no
AI has read yet, the journal still names its people, places and tags. This finds them, with no model
and nothing sent anywhere:
- Korean proper nouns: a word Kiwi reads as a proper noun (NNP) somewhere in the journal is a name
  wherever it stands as a noun ("지수랑" may read as a common noun in one sentence and a name in
  another). Whether it is a person or a place is read from the particle that follows it ("지수랑",
  "지수한테", "민수 씨" -> a person; "부산에", "해운대에서", "서울로" -> a place), from place-name endings
  of three syllables or more (성수동, 제주도, 광안리) and a short list of Korean places; a two- or
  three-syllable name with no sign either way is taken for a person (a diary's names are mostly people).
- English names: a run of capitalised words ("Grace", "Café Luna"). A single capitalised word that
  opens a sentence counts only where the journal also capitalises it inside a sentence, or never
  writes it in lower case ("Met", "After" are words, not names). "in/at/to/from" before a name make
  it a place, "with/met/and" a person; a name that ends in Park, Street, Café… is a place.
- Tags: the entry's own tags and the #words of its text, as "#여행".
Each name is linked to the diarist ("나", the centre) and to every other name of the same entry
("mentioned together", counted over entries). Only the diarist's own entries count: not the
companion's replies, not memoir's letters. Pure apart from Kiwi (lexical/tokens.py); results for a
text are cached, so drawing the graph again costs only the new entries.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from itertools import combinations

from memoir_desktop.core.lexical.tokens import morphemes
from memoir_desktop.core.storage.graph_store import USER_NODE_NAME, USER_NODE_TYPE

MENTIONED = "mentioned"  # the diarist -> a name their entries mention
TOGETHER = "mentioned together"  # two names one entry mentions
MAX_NAMES = 150  # the most mentioned; a life's journal names more than a drawing can show
MAX_PER_ENTRY = 12  # names of one entry linked together (a list of guests is not 66 links)
MAX_LINKS = 600


@dataclass(frozen=True)
class Mention:
    name: str
    type: str  # person | place | tag | thing
    count: int  # entries that name it
    first_seen: datetime
    entry_ids: tuple[int, ...]


@dataclass(frozen=True)
class MentionLink:
    source: str  # a name (the diarist's own node for MENTIONED)
    target: str
    relation: str  # MENTIONED or TOGETHER
    count: int
    first_seen: datetime
    entry_ids: tuple[int, ...]


@dataclass
class MentionGraph:
    nodes: list[Mention]
    links: list[MentionLink]
    written: dict[int, datetime] = field(default_factory=dict)  # when each entry that names something was written


@dataclass(frozen=True)
class UnreadEntry:
    id: int
    content: str
    tags: tuple[str, ...]
    created_at: datetime


# -- Korean ------------------------------------------------------------------------------------------

_PERSON_AFTER = {"랑", "이랑", "와", "과", "한테", "에게", "께", "하고", "이하고", "한테서", "에게서", "더러"}
_PERSON_BOUND = {"씨", "님", "선배", "언니", "오빠", "누나", "형"}
_PLACE_AFTER = {"에", "에서", "서"}
_TOWARDS = {"로", "으로"}  # a place only before a verb of going ("서울로 이사"), else a means ("넷플릭스로 봤다")
_GOING = {"가", "오", "이사", "떠나", "향하", "출발", "돌아가", "돌아오", "이동", "옮기", "여행", "놀러", "내려가", "올라가"}
# The people a diary names by who they are to the diarist: common nouns, but people all the same.
KIN = frozenset("엄마 아빠 어머니 아버지 할머니 할아버지 외할머니 외할아버지 동생 남동생 여동생 언니 오빠 누나 형 "
                "남편 아내 와이프 남자친구 여자친구 남친 여친 아들 딸 이모 고모 삼촌 사촌 조카 시어머니 장모님".split())
_PLACE_ENDINGS = ("시", "도", "군", "구", "동", "읍", "면", "리", "역", "산", "봉", "강", "섬", "항", "공원", "해변",
                  "해수욕장", "시장", "공항", "대학교", "호수", "거리", "마을", "타운", "폭포")
# Places a Korean diary names most, which no particle or ending gives away ("판교 카카오").
KOREAN_PLACES = frozenset(
    "서울 부산 대구 인천 광주 대전 울산 세종 경기 강원 충북 충남 전북 전남 경북 경남 제주 판교 분당 일산 수원 "
    "성남 용인 고양 강남 강북 홍대 신촌 이태원 잠실 여의도 종로 명동 성수 을지로 합정 망원 해운대 광안리 서면 "
    "남포동 강릉 속초 양양 춘천 전주 경주 여수 통영 거제 포항 목포 순천 안동 군산 가평 "
    "일본 미국 중국 대만 홍콩 베트남 태국 프랑스 영국 독일 이탈리아 스페인 호주 캐나다 도쿄 오사카 교토 후쿠오카 "
    "삿포로 파리 런던 뉴욕 하와이 방콕 다낭 싱가포르 베를린 로마 바르셀로나".split())
_HANGUL = re.compile(r"^[가-힣]+$")


@dataclass(frozen=True)
class _Word:
    form: str
    proper: bool  # Kiwi read it as a proper noun here
    person: int  # signs it names a person (0/1), and a place
    place: int


@lru_cache(maxsize=16_384)
def _korean_words(text: str) -> tuple[_Word, ...]:
    morphs = morphemes(text)
    out = []
    for i, (form, tag) in enumerate(morphs):
        if tag not in ("NNP", "NNG") or len(form) < 2 or not _HANGUL.match(form):
            continue
        nxt = morphs[i + 1] if i + 1 < len(morphs) else ("", "")
        after = morphs[i + 2] if i + 2 < len(morphs) else ("", "")
        person = (nxt[0] in _PERSON_AFTER and nxt[1] in ("JKB", "JC")) or (nxt[1] == "NNB" and nxt[0] in _PERSON_BOUND) \
            or (nxt == ("이", "XSN") and after[1].startswith("J")) or nxt[1] == "JKV"
        place = nxt[1] == "JKB" and (nxt[0] in _PLACE_AFTER or (nxt[0] in _TOWARDS and after[0] in _GOING))
        out.append(_Word(form, tag == "NNP" or form in KIN, int(person or form in KIN), int(place)))
    return tuple(out)


def _korean_type(form: str, person: int, place: int) -> str:
    if form in KOREAN_PLACES or (len(form) >= 3 and form.endswith(_PLACE_ENDINGS)):
        place += 2
    if person > place:
        return "person"
    if place > person:
        return "place"
    return "person" if len(form) <= 3 else "thing"


# -- English -----------------------------------------------------------------------------------------

# Capitalised words of two letters or more (Q3 is no name), an honorific kept with its name ("Mr. Park").
_L = "A-Za-zÀ-ÖØ-öø-ÿĀ-ſ"  # Latin letters (Café, Zoë), not Hangul: "Grace랑" names Grace
_CAPITALISED = re.compile(rf"(?<![{_L}])(?:(?:Mr|Mrs|Ms|Dr|Prof)\.?[ \t]+)?[A-ZÀ-ÖØ-Þ][{_L}’'-]*[{_L}]"
                          rf"(?:[ \t]+[A-ZÀ-ÖØ-Þ][{_L}’'-]*[{_L}])*")
_HONORIFIC = re.compile(r"^(?:Mr|Mrs|Ms|Dr|Prof)\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*)$")
_COMMON = frozenset(
    "I I'm I've I'd I'll The A An This That These Those It It's We He She They You My Our Your His Her Their "
    "Today Yesterday Tomorrow Tonight Then After Before When While And But So Also Maybe Just Still Finally "
    "Later Now Again Some What Why How Where Who OK Okay Yes No Not Dear Mom Dad "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July "
    "August September October November December Christmas".split())
_PLACE_BEFORE = {"in", "at", "to", "from", "near", "visited", "visit", "into", "around"}
_PERSON_BEFORE = {"with", "met", "and", "called", "texted", "told", "saw", "asked", "meet", "thanks"}
_PLACE_WORDS = {"Park", "Street", "St", "Road", "Avenue", "Cafe", "Café", "Coffee", "Station", "Beach", "Museum",
                "City", "Lake", "Mountain", "River", "Airport", "Hotel", "Restaurant", "Bar", "Library", "Market",
                "Square", "Bridge", "Island", "Gym", "Hospital", "School", "University", "Mall"}


@dataclass(frozen=True)
class _Name:
    name: str
    opens_sentence: bool
    before: str  # the word before it, lower case
    after: str = ""  # a Korean particle right after it ("Grace랑"), which says what it is as for a Korean name
    rest: str = ""  # opening a sentence: the run without its first word ("Called Jake" -> "Jake")


@lru_cache(maxsize=16_384)
def _english_names(text: str) -> tuple[_Name, ...]:
    out = []
    for m in _CAPITALISED.finditer(text):
        words = m.group().split()
        start = m.start()
        while words and words[0] in _COMMON:  # "Today Grace", "The Old Man": the common word is not the name
            start = text.index(words[0], start) + len(words[0])
            words = words[1:]
        if not words:
            continue
        # An honorific makes a name wherever it stands ("Mr. Park says hi").
        opens = bool(_SENTENCE_START.search(text[:start])) and not _HONORIFIC.match(words[0])
        rest = words[1:] if opens else []
        before = re.findall(r"[A-Za-z]+", text[max(0, start - 20):start])
        particle = re.match(r"[가-힣]+", text[m.end():m.end() + 4])
        out.append(_Name(" ".join(words).strip("'’"), opens, before[-1].lower() if before else "",
                         particle.group() if particle else "",
                         " ".join(rest).strip("'’") if rest and " ".join(rest) not in _COMMON else ""))
    return tuple(out)


def _english_type(name: str, befores: Counter) -> str:
    if _HONORIFIC.match(name):
        return "person"
    if name.split()[-1] in _PLACE_WORDS:
        return "place"
    place = sum(n for b, n in befores.items() if b in _PLACE_BEFORE)
    person = sum(n for b, n in befores.items() if b in _PERSON_BEFORE)
    if place > person:
        return "place"
    return "person" if person else "thing"  # a title, a brand, a language: no sign of a person


# -- tags --------------------------------------------------------------------------------------------

_HASHTAG = re.compile(r"(?:^|(?<=\s))#([^\s#.,!?;:()\[\]{}\"']+)")


# -- the journal -------------------------------------------------------------------------------------

def derive(entries: Iterable[UnreadEntry]) -> MentionGraph:
    """The names `entries` mention, linked to the diarist and to each other (see the module docstring)."""
    entries = sorted(entries, key=lambda e: e.created_at)
    korean = {e.id: _korean_words(e.content) for e in entries}
    english = {e.id: _english_names(e.content) for e in entries}
    proper = {w.form for words in korean.values() for w in words if w.proper}
    inside = {n.name for names in english.values() for n in names if not n.opens_sentence}  # mid-sentence

    votes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    befores: dict[str, Counter] = defaultdict(Counter)
    named: dict[int, dict[str, str]] = {}  # entry id -> {name: "ko" | "en" | "tag"}
    for e in entries:
        found: dict[str, str] = {}
        for tag in (*e.tags, *_HASHTAG.findall(e.content)):
            if tag.strip():
                found.setdefault(f"#{tag.strip()}", "tag")
        for w in korean[e.id]:
            if w.form in proper:
                found.setdefault(w.form, "ko")
                votes[w.form][0] += w.person
                votes[w.form][1] += w.place
        for n in english[e.id]:
            name, before = n.name, n.before
            if n.opens_sentence and name not in inside:
                # Capitalised where a sentence opens, and nowhere else: its first word is a word ("Felt",
                # "Lunch", "Called"), and what follows it, if anything, the name ("Called Jake").
                if not n.rest:
                    continue
                name, before = n.rest, n.name.split()[0].lower()
            found.setdefault(name, "en")
            befores[name][before] += 1
            if n.after:
                befores[name]["with" if n.after.startswith(tuple(_PERSON_AFTER | _PERSON_BOUND))
                             else "at" if n.after.startswith(("에", "에서")) else ""] += 1
        if found:
            named[e.id] = found

    when = {e.id: e.created_at for e in entries}
    counts = Counter(name for found in named.values() for name in found)
    kept = {name for name, _ in counts.most_common(MAX_NAMES)}
    sources: dict[str, list[int]] = defaultdict(list)
    kinds: dict[str, str] = {}
    for entry_id, found in named.items():
        for name, kind in found.items():
            if name in kept:
                sources[name].append(entry_id)
                kinds[name] = kind

    def type_of(name: str) -> str:
        kind = kinds[name]
        if kind == "tag":
            return "tag"
        if kind == "ko":
            return _korean_type(name, *votes[name])
        return _english_type(name, befores[name])

    nodes = [Mention(name, type_of(name), len(ids), when[ids[0]], tuple(ids)) for name, ids in sources.items()]
    if not nodes:
        return MentionGraph([], [])
    nodes.sort(key=lambda n: (-n.count, n.first_seen, n.name))
    first = min(n.first_seen for n in nodes)
    links = [MentionLink(USER_NODE_NAME, n.name, MENTIONED, n.count, n.first_seen, n.entry_ids) for n in nodes]
    together: dict[tuple[str, str], list[int]] = defaultdict(list)
    for entry_id, found in named.items():
        names = sorted((n for n in found if n in kept), key=lambda n: -counts[n])[:MAX_PER_ENTRY]
        for a, b in combinations(sorted(names), 2):
            together[(a, b)].append(entry_id)
    pairs = sorted(together.items(), key=lambda kv: (-len(kv[1]), when[kv[1][0]]))[:MAX_LINKS]
    links += [MentionLink(a, b, TOGETHER, len(ids), when[ids[0]], tuple(ids)) for (a, b), ids in pairs]
    user = Mention(USER_NODE_NAME, USER_NODE_TYPE, len(named), first, tuple(sorted(named, key=lambda i: when[i])))
    return MentionGraph([user, *nodes], links, {i: when[i] for i in named})
