"""Loader for the LoCoMo benchmark file (Maharana et al., ACL 2024, ``data/locomo10.json``).

The dataset is CC BY-NC 4.0 and is never shipped with the app: every caller passes its path.
This module only parses it into small dataclasses (stdlib only) and cleans up the known quirks:

- sessions are found by their ``session_N`` keys (conv-26 has ``session_N_date_time`` keys for
  sessions that do not exist);
- evidence / observation dia ids come as lists, ``"D8:6; D9:17"``, ``"D1:3, D1:4"``,
  ``"D:11:26"`` or ``"D30:05"``; :func:`normalize_dia_ids` turns them all into ``"D<s>:<t>"``;
- category 5 (adversarial) questions carry ``adversarial_answer`` instead of ``answer``;
- answers are sometimes numbers (``2022``): they are converted to ``str``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = [
    "CATEGORY_NAMES",
    "QA",
    "Conversation",
    "Observation",
    "Session",
    "Turn",
    "category_label",
    "load_locomo",
    "normalize_dia_ids",
    "parse_session_date",
]

#: category number -> (LoCoMo meaning, label the Mem0 paper uses for the same number)
CATEGORY_NAMES: dict[int, tuple[str, str]] = {
    1: ("multi-hop", "Single Hop"),
    2: ("temporal", "Temporal"),
    3: ("open-domain", "Multi-Hop"),
    4: ("single-hop", "Open Domain"),
    5: ("adversarial", "—"),
}


def category_label(category: int) -> str:
    """``"1 multi-hop (Mem0: Single Hop)"`` — the number with both names."""
    locomo, mem0 = CATEGORY_NAMES.get(category, ("?", "?"))
    return f"{category} {locomo} (Mem0: {mem0})"


@dataclass
class Turn:
    speaker: str
    dia_id: str
    text: str  # includes " [shares a photo: <blip_caption>]" for photo turns


@dataclass
class Session:
    index: int
    date: datetime
    turns: list[Turn] = field(default_factory=list)


@dataclass
class QA:
    question: str
    answer: str  # category 5: the adversarial_answer
    category: int
    evidence: list[str] = field(default_factory=list)  # normalised dia ids, e.g. "D8:6"


@dataclass
class Observation:
    session: int
    speaker: str
    text: str
    dia_ids: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: list[Session]
    qa: list[QA]
    observations: list[Observation]

    def session(self, index: int) -> Session | None:
        for s in self.sessions:
            if s.index == index:
                return s
        return None

    def dia_ids(self) -> set[str]:
        return {t.dia_id for s in self.sessions for t in s.turns}


_DATE_RE = re.compile(
    r"^\s*(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ampm>[ap]\.?m\.?)\s+on\s+(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]+),?\s+(?P<y>\d{4})\s*$",
    re.IGNORECASE,
)
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}


def parse_session_date(s: str) -> datetime:
    """Parse a LoCoMo session date such as ``"1:56 pm on 8 May, 2023"`` (naive local datetime)."""
    m = _DATE_RE.match(s or "")
    if not m:
        raise ValueError(f"unrecognised LoCoMo session date: {s!r}")
    mon = _MONTHS.get(m["mon"][:3].lower())
    if mon is None:
        raise ValueError(f"unrecognised month in LoCoMo session date: {s!r}")
    hour = int(m["h"]) % 12
    if m["ampm"].lower().startswith("p"):
        hour += 12
    return datetime(int(m["y"]), mon, int(m["d"]), hour, int(m["m"]))


_DIA_RE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)


def normalize_dia_ids(value: Any) -> list[str]:
    """Return the dialogue ids in ``value`` as ``["D<session>:<turn>", ...]`` (order kept, no duplicates).

    Accepts a single id, a list (possibly nested) of ids, and strings holding several ids separated
    by ``;``, ``,`` or spaces — or even a stringified list ``"['D15:3', 'D15:5']"``.  Fixes
    ``"D:11:26"`` -> ``"D11:26"`` and leading zeros ``"D30:05"`` -> ``"D30:5"``.  Anything without
    a recognisable id is dropped.
    """
    out: list[str] = []

    def visit(v: Any) -> None:
        if v is None:
            return
        if isinstance(v, (list, tuple)):
            for x in v:
                visit(x)
            return
        for m in _DIA_RE.finditer(str(v)):
            did = f"D{int(m.group(1))}:{int(m.group(2))}"
            if did not in out:
                out.append(did)

    visit(value)
    return out


def _turn_text(raw: dict[str, Any]) -> str:
    text = str(raw.get("text") or "").strip()
    caption = raw.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {str(caption).strip()}]".strip()
    return text


_SESSION_KEY = re.compile(r"^session_(\d+)$")
_OBS_KEY = re.compile(r"^session_(\d+)_observation$")


def _parse_conversation(raw: dict[str, Any]) -> Conversation:
    conv = raw.get("conversation") or {}
    sessions: list[Session] = []
    for key, turns in conv.items():
        m = _SESSION_KEY.match(key)
        if not m or not isinstance(turns, list):
            continue
        idx = int(m.group(1))
        date = parse_session_date(conv[f"session_{idx}_date_time"])
        sessions.append(
            Session(
                index=idx,
                date=date,
                turns=[
                    Turn(speaker=str(t.get("speaker", "")), dia_id=(normalize_dia_ids(t.get("dia_id")) or [""])[0],
                         text=_turn_text(t))
                    for t in turns
                ],
            )
        )
    sessions.sort(key=lambda s: s.index)

    qa: list[QA] = []
    for q in raw.get("qa") or []:
        category = int(q.get("category", 0))
        answer = q.get("answer")
        if answer is None:
            answer = q.get("adversarial_answer", "")
        qa.append(
            QA(
                question=str(q.get("question", "")),
                answer=str(answer),
                category=category,
                evidence=normalize_dia_ids(q.get("evidence")),
            )
        )

    observations: list[Observation] = []
    obs_raw = raw.get("observation") or {}
    for key in sorted(obs_raw, key=lambda k: int(m.group(1)) if (m := _OBS_KEY.match(k)) else 10**9):
        m = _OBS_KEY.match(key)
        if not m:
            continue
        idx = int(m.group(1))
        for speaker, facts in (obs_raw[key] or {}).items():
            for fact in facts or []:
                if isinstance(fact, (list, tuple)) and fact:
                    text, ids = fact[0], fact[1:] if len(fact) > 1 else []
                else:
                    text, ids = fact, []
                text = str(text or "").strip()
                if text:
                    observations.append(
                        Observation(session=idx, speaker=str(speaker), text=text, dia_ids=normalize_dia_ids(ids))
                    )

    return Conversation(
        sample_id=str(raw.get("sample_id", "")),
        speaker_a=str(conv.get("speaker_a", "")),
        speaker_b=str(conv.get("speaker_b", "")),
        sessions=sessions,
        qa=qa,
        observations=observations,
    )


def load_locomo(path: str | Path) -> list[Conversation]:
    """Load a LoCoMo JSON file (a list of conversations, or a single conversation object)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if isinstance(data, dict):
        data = [data]
    return [_parse_conversation(c) for c in data]
