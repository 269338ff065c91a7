"""The running summary S of Mem0, refreshed asynchronously every N memorised turns."""

from __future__ import annotations

from datetime import datetime

from memoir_desktop.core import prompts
from memoir_desktop.core.llm import Gate
from memoir_desktop.core.models import Entry


def refresh_summary(llm: Gate, previous: str, new: list[Entry], today: datetime) -> tuple[str, int]:
    """(the new summary, private entries the gate left out of it)."""
    cleared = llm.admit("summary", entries=new)
    new = cleared.keep_entries(new)
    if not new:
        return previous, cleared.left_out
    system = prompts.SUMMARY_SYSTEM.format(today=today.date().isoformat())
    user = prompts.SUMMARY_USER.format(
        summary=previous or "(none yet)",
        messages=prompts.format_messages(
            [{"role": e.role, "content": f"[{e.created_at:%Y-%m-%d}] {e.content}"} for e in new]
        ),
    )
    return llm.complete(cleared, [{"role": "system", "content": system},
                                  {"role": "user", "content": user}]), cleared.left_out
