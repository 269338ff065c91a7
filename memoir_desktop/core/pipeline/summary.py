"""The running summary S of Mem0, refreshed asynchronously every N memorised turns."""

from __future__ import annotations

from datetime import datetime

from memoir_desktop.core import prompts
from memoir_desktop.core.llm import LLMClient
from memoir_desktop.core.models import Entry


def refresh_summary(llm: LLMClient, previous: str, new: list[Entry], today: datetime) -> str:
    system = prompts.SUMMARY_SYSTEM.format(today=today.date().isoformat())
    user = prompts.SUMMARY_USER.format(
        summary=previous or "(none yet)",
        messages=prompts.format_messages(
            [{"role": e.role, "content": f"[{e.created_at:%Y-%m-%d}] {e.content}"} for e in new]
        ),
    )
    return llm.complete("summary", [{"role": "system", "content": system},
                                    {"role": "user", "content": user}])
