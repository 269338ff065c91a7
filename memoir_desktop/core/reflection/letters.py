"""Weekly and monthly letters: after a week (or month) with entries, a letter about it — the themes,
what the user did and felt, what changed (memories updated or no longer true that period, from
their history: "“부산에 산다” → “서울로 이사했다”"), and the plans still ahead.

With an LLM the letter is written by it from that material, in the user's language; without one
(or when it fails) it is an extractive digest: days written, the themes by Korean morphemes /
English words, the period's memory changes, open plans. A letter is an entry of kind "letter"
(journal.py): searchable and exported, never memorised, never in the companion's context.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlmodel import Session, col, select

from memoir_desktop.core.lexical import tokenize_many
from memoir_desktop.core.lexical.tokens import morphemes
from memoir_desktop.core.llm import prompts
from memoir_desktop.core.reflection import mostly_language
from memoir_desktop.core.storage.models import Entry, History, Memory

MIN_ENTRIES = {"week": 1, "month": 1}  # user entries a period needs for a letter
LOOKBACK = {"week": 4, "month": 2}  # periods back a start looks for a missing letter
THEMES = 6
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_EN_STOP = frozenset("""this that with have from they them then than were what when where which while would could
should about after again also been before being both each into just like more most much only other over same some
such their there these those very will your yours today tonight really think thought still going went made make
because didn doesn don't i'm it's felt feel""".split())
# Words a diarist would not call a theme: time words, generic nouns, verb-ish and filler words.
_EN_GENERIC = frozenset("""day days week weeks weekend month months year years today tonight tomorrow yesterday
morning evening night time times hour hours minute minutes moment while lately recently finally actually really
pretty quite maybe probably always never ever every even well okay sure thing things something anything everything
nothing stuff kind sort lot lots bit little good great nice fine better best bad worse first last next another
back around away still here there start started starting starts begin began began learn learning learned learnt
want wanted need needed try tried trying know knew said told tell take took come came coming doing done does
getting gets going goes keep kept feeling feels felt think thinking seem seemed look looked looking make making
made give gave find found work worked call called used using plan planned again once many much most some
easily happily busily""".split())
# The same for Korean nouns (Kiwi NNG): when, how much, "thought", "start" — not what the days were about.
_KO_GENERIC = frozenset("""오늘 어제 내일 모레 이번 지난 다음 요즘 최근 하루 종일 오전 오후 아침 저녁 밤 주말 평일
시간 시작 생각 정도 진짜 정말 처음 마지막 느낌 기분 이야기 얘기 사람 자신 우리 때문 동안 이후 이전 하나 부분 다시
계속 거의 조금 많이 일상 오랜만 매일 매주 이날 그날 요일""".split())
_HANGUL = re.compile(r"^[\uac00-\ud7a3]{2,}$")
_HANGUL_ANY = re.compile("[\uac00-\ud7a3]")


@dataclass(frozen=True)
class Period:
    kind: str  # week | month
    start: date
    end: date  # inclusive

    @property
    def key(self) -> str:
        return f"letter:{self.kind}:{self.start.isoformat()}"

    @classmethod
    def from_key(cls, key: str) -> Period:
        _, kind, start = key.split(":")
        d = date.fromisoformat(start)
        return week_of(d) if kind == "week" else month_of(d)

    @property
    def begins(self) -> datetime:
        return datetime(self.start.year, self.start.month, self.start.day)

    @property
    def ends(self) -> datetime:  # exclusive
        return datetime(self.end.year, self.end.month, self.end.day) + timedelta(days=1)


def week_of(d: date) -> Period:
    start = d - timedelta(days=d.weekday())  # weeks begin on Monday
    return Period("week", start, start + timedelta(days=6))


def month_of(d: date) -> Period:
    start = d.replace(day=1)
    nxt = (start + timedelta(days=32)).replace(day=1)
    return Period("month", start, nxt - timedelta(days=1))


def due_periods(s: Session, user_id: str, at: datetime) -> list[Period]:
    """Periods that ended before `at` (the last few), had entries, and have no letter yet (one the
    user put in the trash counts: it is not made again)."""
    candidates: list[Period] = []
    p = week_of(at.date())
    for _ in range(LOOKBACK["week"]):
        p = week_of(p.start - timedelta(days=1))
        candidates.append(p)
    p = month_of(at.date())
    for _ in range(LOOKBACK["month"]):
        p = month_of(p.start - timedelta(days=1))
        candidates.append(p)
    made = set(s.exec(select(Entry.source_ref).where(col(Entry.user_id) == user_id, col(Entry.kind) == "letter")))
    out = []
    for p in sorted(candidates, key=lambda p: (p.end, p.kind)):
        if p.key in made:
            continue
        if len(_entries(s, user_id, p)) >= MIN_ENTRIES[p.kind]:
            out.append(p)
    return out


@dataclass
class Material:
    period: Period
    lang: str
    entries: list[Entry] = field(default_factory=list)
    days_written: int = 0
    words: int = 0
    themes: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    changed: list[tuple[str, str]] = field(default_factory=list)  # (before, after)
    no_longer: list[str] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)
    # Where each memory text of the material came from (memory id; the entry of its change), so the
    # gate can leave out what only private entries said when the letter is written by the LLM.
    memory_of: dict[str, str] = field(default_factory=dict)
    entry_of: dict[str, int] = field(default_factory=dict)

    def note(self, text: str, h: History) -> None:
        self.memory_of.setdefault(text, h.memory_id)
        if h.entry_id is not None:
            self.entry_of.setdefault(text, h.entry_id)


def gather(s: Session, user_id: str, period: Period) -> Material:
    entries = _entries(s, user_id, period)
    mat = Material(period, mostly_language([e.content for e in entries]), entries)
    mat.days_written = len({e.created_at.date() for e in entries})
    mat.words = sum(len(e.content.split()) for e in entries)
    mat.themes = themes([e.content for e in entries])
    rows = s.exec(select(History, Memory).join(Memory, col(Memory.id) == col(History.memory_id))
                  .where(col(Memory.user_id) == user_id, col(History.created_at) >= period.begins,
                         col(History.created_at) < period.ends, col(History.actor).in_(["llm", "user"]))
                  .order_by(col(History.id))).all()
    added_by_entry: dict[int, list[str]] = {}
    for h, _m in rows:
        for t in (h.old_memory, h.new_memory):
            if t:
                mat.note(t, h)
        if h.event == "ADD" and h.new_memory:
            mat.added.append(h.new_memory)
            if h.entry_id is not None:
                added_by_entry.setdefault(h.entry_id, []).append(h.new_memory)
    paired: set[str] = set()
    for h, _m in rows:
        if h.event == "UPDATE" and h.old_memory and h.new_memory:
            mat.changed.append((h.old_memory, h.new_memory))
        elif h.event == "DELETE" and h.old_memory:
            # A fact contradicted by an entry of the same turn: "before → after" reads as the change it was.
            after = added_by_entry.get(h.entry_id or -1)
            if after:
                mat.changed.append((h.old_memory, after[0]))
                paired.add(after[0])
            else:
                mat.no_longer.append(h.old_memory)
    mat.added = [t for t in dict.fromkeys(mat.added) if t not in paired]
    plans = s.exec(select(Memory).where(col(Memory.user_id) == user_id, col(Memory.state) == "active",
                                        col(Memory.about_start) >= period.ends, col(Memory.created_at) < period.ends,
                                        col(Memory.recurrence).is_(None)).order_by(col(Memory.about_start))).all()
    mat.plans = [m.text for m in plans][:8]
    for m in plans[:8]:
        mat.memory_of.setdefault(m.text, m.id)
    return mat


def themes(texts: list[str], limit: int = THEMES) -> list[str]:
    """The topics most entries come back to, counted once per entry, in order of how many entries
    name them (ties: the one named first): Korean nouns of two or more syllables as Kiwi reads them
    (a noun made a verb, "시작했다", is a doing, not a thing) and English content words of four or
    more letters, less time words, generic nouns and verb-ish filler ("month, learning, started").
    Empty when nothing is worth showing."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text, tokens in zip(texts, tokenize_many(texts)):
        words = _korean_topics(text, tokens)
        words += [w.lower() for w in _WORD.findall(text)]
        words = [w for w in dict.fromkeys(words) if _english_topic(w) or _HANGUL.match(w)]
        for w in words:
            first.setdefault(w, len(first))
        counts.update(words)
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return [w for w in ranked if counts[w] >= 2 or len(texts) <= 2][:limit]


def _korean_topics(text: str, tokens: list[str]) -> list[str]:
    """Kiwi's common and proper nouns of two or more syllables that stand as nouns in `text` (not
    "시작" of "시작했다"), less the generic ones; without Kiwi, the tokens that stand by themselves."""
    if not _HANGUL_ANY.search(text):
        return []
    morphs = morphemes(text)
    if not morphs:
        return [t for t in tokens if _HANGUL.match(t) and t not in _KO_GENERIC and _standalone(t, text)]
    out = []
    for i, (form, tag) in enumerate(morphs):
        nxt = morphs[i + 1][1] if i + 1 < len(morphs) else ""
        if tag in ("NNG", "NNP") and _HANGUL.match(form) and form not in _KO_GENERIC and nxt not in ("XSV", "XSA"):
            out.append(form)
    return out


def _english_topic(word: str) -> bool:
    if not word.isascii() or word in _EN_STOP or word in _EN_GENERIC:
        return False
    # Past forms and adverbs are doings and manners, not topics ("walked", "slowly"); "family" stays.
    return not ((word.endswith("ed") and not word.endswith("eed") and len(word) > 4)
                or (word.endswith("ly") and not word.endswith("ily")))


_PARTICLES = ("이", "가", "은", "는", "을", "를", "에", "와", "과", "랑", "도", "의", "로", "으", "만", "까", "부",
              "한", "께", "처", "보", "이랑", "하고")


def _standalone(token: str, text: str) -> bool:
    """A noun stands in the text by itself or before a particle ("한강에서", "러닝을"); a verb stem
    ("깨우" of "깨운다") never does, so a theme is a thing, not a doing."""
    for m in re.finditer(re.escape(token), text):
        rest = text[m.end():m.end() + 2]
        if not rest or not ("\uac00" <= rest[0] <= "\ud7a3") or rest.startswith(_PARTICLES):
            return True
    return False


def title(period: Period, lang: str) -> str:
    a, b = period.start, period.end
    if lang == "ko":
        if period.kind == "month":
            return f"{a.year}년 {a.month}월의 편지"
        return f"{a.month}월 {a.day}일 – {b.month}월 {b.day}일, 한 주의 편지"
    if period.kind == "month":
        return f"A letter for {a:%B %Y}"
    return f"A letter for the week of {a:%B} {a.day} – {b:%B} {b.day}"


def digest(mat: Material) -> str:
    """The letter without an LLM: what the period held, in the user's language."""
    ko = mat.lang == "ko"
    lines = [f"**{title(mat.period, mat.lang)}**", ""]
    span = ("이번 주" if mat.period.kind == "week" else "이번 달") if ko else \
        ("This week" if mat.period.kind == "week" else "This month")
    if ko:
        lines.append(f"{span}에는 {mat.days_written}일 동안 {len(mat.entries)}편을 썼어요 ({mat.words:,}어절).")
    else:
        lines.append(f"{span} you wrote {len(mat.entries)} "
                     f"{'entry' if len(mat.entries) == 1 else 'entries'} on {mat.days_written} "
                     f"{'day' if mat.days_written == 1 else 'days'} ({mat.words:,} words).")
    if mat.themes:
        lines += ["", ("자주 나온 이야기: " if ko else "What you kept coming back to: ") + ", ".join(mat.themes)]
    if mat.changed or mat.no_longer:
        lines += ["", "달라진 것:" if ko else "What changed:"]
        lines += [f"- “{a}” → “{b}”" for a, b in mat.changed]
        lines += [(f"- 이제는 아닌 것: “{t}”" if ko else f"- No longer so: “{t}”") for t in mat.no_longer]
    if mat.added:
        lines += ["", "새로 기억한 것:" if ko else "Newly remembered:"]
        lines += [f"- {t}" for t in mat.added[:8]]
    if mat.plans:
        lines += ["", "앞으로의 계획:" if ko else "Plans ahead:"]
        lines += [f"- {t}" for t in mat.plans]
    return "\n".join(lines)


def compose(llm, mat: Material) -> str:
    """The letter written by the LLM from the same material (raises the LLM's errors)."""
    ko = mat.lang == "ko"
    period = ("week" if mat.period.kind == "week" else "month")
    cleared = llm.admit("letter", entries=[*mat.entries, *mat.entry_of.values()], memories=mat.memory_of.values())

    def ok(*texts: str) -> bool:
        return all(cleared.memory_ok(mat.memory_of.get(t)) and cleared.entry_ok(mat.entry_of.get(t)) for t in texts)

    kept = cleared.keep_entries(mat.entries)
    entries = "\n".join(f"- [{e.created_at:%Y-%m-%d}] {e.content[:600]}" for e in kept[:40]) or "(none)"
    changes = "\n".join([f"- changed: {a} -> {b}" for a, b in mat.changed if ok(a, b)]
                        + [f"- no longer true: {t}" for t in mat.no_longer if ok(t)]
                        + [f"- new: {t}" for t in [t for t in mat.added if ok(t)][:12]]) or "(none)"
    plans = "\n".join(f"- {t}" for t in mat.plans if ok(t)) or "(none)"
    text = llm.complete(cleared, [
        {"role": "system", "content": prompts.LETTER_SYSTEM.format(
            period=period, start=mat.period.start.isoformat(), end=mat.period.end.isoformat(),
            language="Korean" if ko else "English")},
        {"role": "user", "content": prompts.LETTER_USER.format(entries=entries, changes=changes, plans=plans)}],
        temperature=0.6)
    text = (text or "").strip()
    if not text:
        raise ValueError("the letter came back empty")
    return f"**{title(mat.period, mat.lang)}**\n\n{text}" + left_out_line(len(mat.entries) - len(kept), mat.lang)


def left_out_line(n: int, lang: str) -> str:
    """Said under a letter the LLM wrote, so the writer knows what it did not read."""
    if n <= 0:
        return ""
    if lang == "ko":
        return f"\n\n_비공개 기록 {n}편은 AI에게 보내지 않았어요._"
    return f"\n\n_{n} private {'entry was' if n == 1 else 'entries were'} not sent to the AI._"


def _entries(s: Session, user_id: str, p: Period) -> list[Entry]:
    return list(s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.role) == "user",
                                           col(Entry.kind) == "entry", col(Entry.deleted_at).is_(None),
                                           col(Entry.created_at) >= p.begins, col(Entry.created_at) < p.ends)
                       .order_by(col(Entry.created_at))))


def covers(period_key: str, day: date) -> bool:
    """Whether the letter of this period tells of `day` (a purge of that day's entry takes it too)."""
    period = Period.from_key(period_key)
    return period.start <= day <= period.end
