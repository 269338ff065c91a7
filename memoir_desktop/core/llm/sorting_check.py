"""Whether the model can do the memory-sorting step (Mem0's ADD / UPDATE / DELETE / NOOP), checked on a
made-up case instead of learnt on the diarist's entries.

Qwen2.5 0.5B sends the instruction's example shape back for every sorting step (real-llm-qwen.txt);
the write path then skips the step (pipeline/update.py, modes.asks). Learnt from entries, that cost
the first three entries with memories to compare, and every tenth after, 7-9 s each on two cores.
"""

from __future__ import annotations

from memoir_desktop.core.llm import modes, prompts
from memoir_desktop.core.llm.gate import Gate

# A made-up case for the check below: no diarist's words, and one a model that sorts answers with a
# change (the memory is contradicted), not with the example's single ADD.
_CHECK = "NEW FACT 0: Moved from Lisbon to Porto last month\nEXISTING MEMORIES:\n  [0] Lives in Lisbon (recorded 2025-03-02)"


def check_sorting(llm: Gate, *, when_due: bool = False) -> bool | None:
    """Ask the sorting step once on a made-up case and count what the answer shows: the example sent
    back (as if seen three times in a row, so entries skip the step), or a real answer (asked every
    time). Test connection does it, so a diarist's first entries do not pay for learning it; the
    app's writer does it while idle, `when_due`: for an endpoint never checked, and in place of the
    step's ask-again on every tenth entry, so no entry waits for that either. True when it echoed;
    None when not asked."""
    if not llm.configured or llm.capabilities is None:
        return None
    n = llm.capabilities.echoes.get("update")
    if when_due and n is not None and (n < modes.ECHOES_BEFORE_SKIP or not modes.asks(n)):
        return None
    messages = [{"role": "system", "content": prompts.UPDATE_SYSTEM.format()},
                {"role": "user", "content": prompts.UPDATE_USER.format(today="2026-01-15", blocks=_CHECK)}]
    echoed = llm.echoes_example(messages, prompts.UPDATE_TOOL)
    if echoed is not None:
        llm.set_echoes("update", max((n or 0) + 1, modes.ECHOES_BEFORE_SKIP) if echoed else 0)
    return echoed
