"""What kind of thing a memory is (people, places, work, …): the LLM's category at extraction, else
rules over its words and time. The profile groups memories by it, and the write path leaves out the
kinds the user switched off ("don't remember this kind of thing")."""

from __future__ import annotations

from datetime import datetime

from memoir_desktop.core.llm.prompts import FACT_CATEGORIES

CATEGORIES = FACT_CATEGORIES  # people, places, work, health, preferences, habits, plans, feelings, events, other

# Words that mark a category, Korean and English (lower case; matched as parts of the text).
# Order matters: the first category with a match wins, so the more specific kinds come first.
_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("health", ("병원", "아프", "아팠", "감기", "두통", "약을", "약 ", "수면", "잠을", "잠이", "운동", "러닝", "달리",
                "요가", "헬스", "다이어트", "체중", "몸무게", "건강", "진료", "수술", "알레르기",
                "doctor", "hospital", "sick", "headache", "sleep", "running", "workout", "gym", "yoga", "diet",
                "weight", "health", "allerg", "medicine", "therapy")),
    ("work", ("회사", "직장", "팀장", "업무", "프로젝트", "출근", "퇴근", "회의", "이직", "연봉", "상사", "동료", "면접",
              "사업", "work", "job", "office", "boss", "colleague", "project", "meeting", "promotion", "salary",
              "interview", "career", "client")),
    ("feelings", ("기분", "행복", "슬프", "슬퍼", "우울", "불안", "외롭", "화가", "긴장", "설레", "걱정", "스트레스",
                  "feel", "happy", "sad", "lonely", "anxious", "nervous", "worried", "stress", "miss ", "upset")),
    ("preferences", ("좋아", "싫어", "좋아한다", "즐겨", "못 먹", "잘 먹", "취향", "선호", "favorite", "favourite",
                     "prefer", "love ", "likes", "like ", "hate", "enjoy", "can't stand")),
    ("people", ("엄마", "아빠", "어머니", "아버지", "동생", "언니", "오빠", "누나", "형", "친구", "남편", "아내",
                "남자친구", "여자친구", "아들", "딸", "할머니", "할아버지", "가족", "고양이", "강아지",
                "mother", "father", "mom", "dad", "sister", "brother", "friend", "husband", "wife", "boyfriend",
                "girlfriend", "son", "daughter", "grand", "family", "cat ", "dog ")),
    ("places", ("서울", "부산", "대구", "인천", "광주", "대전", "제주", "이사", "동네", "살고", "산다", "에 산",
                "여행", "moved", "move to", "lives in", "live in", "city", "travel", "trip", "neighbourhood",
                "neighborhood")),
)


def categorize(text: str, *, about: tuple[datetime, datetime] | None = None, recorded: datetime | None = None,
               recurrence: str | None = None) -> str:
    """The category of a fact by rules (used when no LLM named one)."""
    if recurrence:
        return "habits"
    if about and recorded and about[0].date() > recorded.date():
        return "plans"
    low = f" {text.lower()} "
    for category, words in _RULES:
        if any(w in low for w in words):
            return category
    return "other"


def category_of(memory) -> str:
    """A memory's category as the profile shows it (a Memory row or a memory dict)."""
    if isinstance(memory, dict):
        if memory.get("category") in CATEGORIES:
            return memory["category"]
        about = memory.get("about")
        span = (datetime.fromisoformat(about[0]), datetime.fromisoformat(about[1])) if about else None
        return categorize(memory["memory"], about=span, recorded=datetime.fromisoformat(memory["created_at"]),
                          recurrence=memory.get("recurrence"))
    if memory.category in CATEGORIES:
        return memory.category
    about = (memory.about_start, memory.about_end) if memory.about_start and memory.about_end else None
    return categorize(memory.text, about=about, recorded=memory.created_at, recurrence=memory.recurrence)


def blocked(settings) -> frozenset[str]:
    """The categories the user asked memoir not to remember."""
    return frozenset(c for c in (getattr(settings, "not_remembered", None) or ()) if c in CATEGORIES)
