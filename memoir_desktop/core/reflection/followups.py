"""Follow-ups on plans: a memory about a future event (its `about` span lay after the day it was
recorded) becomes a gentle question once the span has passed — "지수는 다음 주에 부산으로 이사 간다고
했었죠. 어떻게 됐나요?" — on today's page and in the companion's context, until the user answers or
dismisses it. The question is a template per language; an LLM, when connected, may phrase it (kept
in the follow_up row so it is asked once)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from memoir_desktop.core.lexical import tokenize_many
from memoir_desktop.core.llm import prompts
from memoir_desktop.core.reflection import mostly_language
from memoir_desktop.core.storage.models import Entry, FollowUp, Memory, now

log = logging.getLogger(__name__)

WINDOW_DAYS = 45  # a plan whose date passed longer ago than this is not brought up any more
OPEN, DISMISSED, ANSWERED = "open", "dismissed", "answered"


def is_plan(m: Memory) -> bool:
    """About one future time when it was recorded (not a habit)."""
    return (m.about_start is not None and m.about_end is not None and not m.recurrence
            and m.about_start.date() > m.created_at.date())


def due(s: Session, user_id: str, at: datetime) -> list[tuple[Memory, FollowUp | None]]:
    """Plans whose span has passed at `at` (within WINDOW_DAYS) and that are still open, oldest first."""
    rows = s.exec(select(Memory).where(col(Memory.user_id) == user_id, col(Memory.state) == "active",
                                       col(Memory.about_end).is_not(None), col(Memory.about_end) < at,
                                       col(Memory.about_end) >= at - timedelta(days=WINDOW_DAYS),
                                       col(Memory.created_at) <= at)
                  .order_by(col(Memory.about_end))).all()
    plans = [m for m in rows if is_plan(m)]
    states = {f.memory_id: f for f in s.exec(select(FollowUp).where(
        col(FollowUp.memory_id).in_([m.id for m in plans])))} if plans else {}
    return [(m, states.get(m.id)) for m in plans if states.get(m.id) is None or states[m.id].state == OPEN]


def offline_question(m: Memory) -> str:
    """The question without an LLM. A Korean plan in the plain form ("…이사 간다") is told back as
    reported speech ("…이사 간다고 했었죠"); anything else is quoted with the day it was written."""
    lang = mostly_language(m.text)
    d = m.created_at
    text = m.text.strip().rstrip(".!")
    if lang == "ko":
        if text.endswith("이다"):
            return f"{text[:-2]}이라고 했었죠. 어떻게 됐나요?"
        if text.endswith("다"):
            return f"{text}고 했었죠. 어떻게 됐나요?"
        return f"{d.month}월 {d.day}일에 “{text}”라고 적어 두셨죠. 어떻게 됐나요?"
    return f"On {d:%B} {d.day} you wrote: “{text}”. How did it go?"


def phrase(llm, m: Memory, at: datetime) -> str | None:
    """One warm question about the plan, in its language; None when the LLM gives nothing usable."""
    lang = "Korean" if mostly_language(m.text) == "ko" else "English"
    cleared = llm.admit("followup", memories=[m])
    if not cleared.memory_ok(m):  # only private entries support it: its template stands
        return None
    text = llm.complete(cleared, [
        {"role": "system", "content": prompts.FOLLOWUP_SYSTEM.format(today=at.date().isoformat(), language=lang)},
        {"role": "user", "content": prompts.FOLLOWUP_USER.format(recorded=m.created_at.date().isoformat(),
                                                                 memory=m.text)}], temperature=0.4)
    text = " ".join((text or "").split()).strip().strip('"“”')
    return text if 0 < len(text) <= 300 else None


def answered_by(s: Session, user_id: str, m: Memory, at: datetime) -> int | None:
    """A user entry written after the plan's date that speaks of it (two content words in common,
    or most of a short plan's words): the follow-up counts as answered by it."""
    assert m.about_end is not None
    entries = s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.role) == "user",
                                         col(Entry.kind) == "entry", col(Entry.deleted_at).is_(None),
                                         col(Entry.created_at) > m.about_end, col(Entry.created_at) <= at)
                     .order_by(col(Entry.created_at))).all()
    if not entries:
        return None
    plan, *texts = tokenize_many([m.text, *(e.content for e in entries)])
    # Names and nouns carry a plan ("지수", "부산", "이사"); short stems ("가") match too much.
    wanted = {t for t in plan if len(t) > 1}
    if not wanted:
        return None
    need = min(2, len(wanted))
    for e, tokens in zip(entries, texts):
        if len(wanted & set(tokens)) >= need:
            return e.id
    return None


def set_state(s: Session, user_id: str, memory_id: str, state: str, entry_id: int | None = None,
              question: str | None = None) -> FollowUp:
    row = s.get(FollowUp, memory_id) or FollowUp(memory_id=memory_id, user_id=user_id)
    row.state = state
    if entry_id is not None:
        row.entry_id = entry_id
    if question is not None:
        row.question = question
    row.updated_at = now()
    s.add(row)
    return row


def followup_dict(m: Memory, row: FollowUp | None) -> dict:
    assert m.about_start is not None and m.about_end is not None
    return {"memory_id": m.id, "memory": m.text, "question": (row.question if row and row.question else None)
            or offline_question(m), "phrased": bool(row and row.question),
            "recorded": m.created_at.date().isoformat(),
            "about": [m.about_start.date().isoformat(), m.about_end.date().isoformat()],
            "state": row.state if row else OPEN, "language": mostly_language(m.text)}
