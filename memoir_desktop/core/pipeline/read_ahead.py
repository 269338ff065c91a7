"""While memoir is idle, a model server near the diarist reads the beginning of the next entry's
extraction request, so the entry, when it comes, is remembered in the time it takes to read it.

Such a server (llama.cpp, Ollama, LM Studio) keeps the last prompt it read and reads a new one from
where the two part. After an entry, the graph's requests come last, and the next extraction read all
of its 1,100-1,300 pieces of text again: with Qwen2.5 0.5B on two cores that was 10-12 s of an entry
(real-llm-qwen.txt). Read ahead, it reads only the new entry.

Only for a server nearby (a cloud service keeps prompts itself, and would charge for this), only
when the diarist writes rather than chats (a companion's answer is asked in between and would
push the beginning out again), and under its own purpose, with what extraction would send: the
gate leaves the private entries out, as it does there.
"""

from __future__ import annotations

import logging

from sqlmodel import Session, col, select

from memoir_desktop.core.llm.purposes import purpose
from memoir_desktop.core.pipeline.extraction import prompt_beginning
from memoir_desktop.core.pipeline.memorize import WriteContext, latest_summary, recent_context
from memoir_desktop.core.storage.models import Entry, now, pk

log = logging.getLogger(__name__)

NAME = "prefill"


def read_ahead(ctx: WriteContext, user_id: str) -> bool:
    """Send the next entry's extraction beginning to be read; True when the server read it."""
    llm = ctx.llm
    if not llm.configured or llm.capabilities is None or not purpose(NAME).active(ctx.settings):
        return False
    with Session(ctx.engine) as s:
        newest = s.exec(select(Entry).where(col(Entry.user_id) == user_id, col(Entry.kind) != "letter",
                                            col(Entry.deleted_at).is_(None))
                        .order_by(col(Entry.id).desc())).first()
        if newest is not None and newest.role != "user":
            return False  # a chat: the companion's next answer is asked first and would push it out
        after = pk(newest) + 1 if newest is not None else 1  # a new journal: the instructions alone
        cleared, recent = recent_context(llm, NAME, s, user_id, after, ctx.settings.recent_messages)
        summ = latest_summary(s, user_id)
    messages, tool = prompt_beginning(summary=summ.text if summ else "", recent=recent, today=now(),
                                      with_mood=bool(ctx.settings.mood_tracking))
    return llm.prefill(cleared, messages, tool)
