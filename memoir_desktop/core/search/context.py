"""Context assembly for the companion's answer.

Hot path, always present: a short profile (the most important active memories), the
running summary S, and the recent messages (sent as chat turns by the caller).
Cold path, on demand: retrieved facts, relations and past journal messages, fused,
de-duplicated and cut to a token budget. Every memory carries its date; the prompt
carries today's date.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memoir_desktop.core.llm.tokens import count_tokens
from memoir_desktop.core.search.router import Route
from memoir_desktop.core.temporal import recurring


@dataclass
class Context:
    profile: list[dict] = field(default_factory=list)
    summary: str = ""
    memories: list[dict] = field(default_factory=list)
    relations: list[dict] = field(default_factory=list)
    episodes: list[dict] = field(default_factory=list)
    tokens: int = 0
    budget: int = 0
    route: Route | None = None  # how the read path was routed (set by the caller)
    skipped: dict[str, str] = field(default_factory=dict)  # sources skipped and why
    left_out: int = 0  # private entries the gate kept out of this context
    followups: list[dict] = field(default_factory=list)  # plans whose date has passed (reflection/followups.py)

    def render(self) -> str:
        parts = []
        if self.summary:
            parts.append("What you know of the user so far (summary):\n" + self.summary)
        if self.profile:
            parts.append("Profile:\n" + "\n".join(memory_line(m) for m in self.profile))
        parts.append("Memories relevant to this message:\n" + (
            "\n".join(memory_lines(self.memories)) if self.memories else "(none found)"))
        if self.relations:
            parts.append("Related facts from the memory graph:\n" + "\n".join(
                relation_line(r) for r in self.relations))
        if self.episodes:
            parts.append("Past journal messages that may help:\n" + "\n".join(
                episode_line(e) for e in self.episodes))
        if self.followups:
            parts.append("Plans the user wrote about whose date has now passed (if it fits, ask gently how "
                         "one went; never more than one):\n" + "\n".join(followup_line(f) for f in self.followups))
        return "\n\n".join(parts)

    @property
    def all_items(self) -> list[dict]:
        return self.memories + self.relations + self.episodes + self.profile


def memory_line(m: dict) -> str:
    about = ""
    if m.get("about"):
        lo, hi = m["about"]
        about = f", about {lo}" + (f"~{hi}" if hi != lo else "")
    if m.get("recurrence"):
        # A habit, not a one-off date: the model must not read it as something that happened once.
        about += f", repeats {recurring.describe(m['recurrence'])}"
    return f"- [{m['created_at'][:10]}{about}] {m['memory']}"


def memory_lines(memories: list[dict]) -> list[str]:
    """One line per memory, but the versions of a state that changed (search/states.py) as one
    line, oldest to newest, where the first of them was: the model reads a change, not two facts
    that contradict each other."""
    groups: dict[str, list[dict]] = {}
    for m in memories:
        aspect = ((m.get("explain") or {}).get("state") or {}).get("aspect")
        if aspect:
            groups.setdefault(aspect, []).append(m)
    out, done = [], set()
    for m in memories:
        aspect = ((m.get("explain") or {}).get("state") or {}).get("aspect")
        if not aspect or len(groups[aspect]) < 2:
            out.append(memory_line(m))
        elif aspect not in done:
            done.add(aspect)
            steps = sorted(groups[aspect], key=lambda x: x["created_at"])
            # Each earlier version with the day the next one replaced it: the model reads "was X
            # until then, now Y" and can answer a question about either time.
            was = [f"was: {x['memory']} ({x['created_at'][:10]} until {nxt['created_at'][:10]})"
                   for x, nxt in zip(steps, steps[1:])]
            now = steps[-1]
            out.append("- [changed over time, oldest → newest] " + " → ".join(was)
                       + f" → now: {now['memory']} (since {now['created_at'][:10]})")
    return out


def followup_line(f: dict) -> str:
    lo, hi = f["about"]
    return f"- [recorded {f['recorded']}, about {lo}" + (f"~{hi}" if hi != lo else "") + f"] {f['memory']}"


def relation_line(r: dict) -> str:
    when = (r.get("valid_from") or r.get("recorded_at") or "")[:10]
    return f"- [{when}] {r['triplet']}" if when else f"- {r['triplet']}"


def episode_line(e: dict) -> str:
    text = e["memory"] if len(e["memory"]) <= 300 else e["memory"][:300] + "…"
    return f"- [{e['created_at'][:10]}] {e['role']}: {text}"


def assemble(*, summary: str, profile: list[dict], retrieved: list[dict], budget: int,
             relations: Sequence[dict] = (), episodes: Sequence[dict] = ()) -> Context:
    """Fill the budget in priority order: retrieved facts, relations, profile, summary, episodes.

    Facts answer the question at hand; relations connect them; the profile and summary are
    background; raw episodes are the most verbose, so they take what is left.
    """
    ctx = Context(budget=budget)
    used = 0
    seen: set[str] = set()

    def take(items, line, target: list) -> None:
        nonlocal used
        for it in items:
            key = str(it.get("id"))
            cost = count_tokens(line(it)) + 1
            if key in seen or used + cost > budget:
                continue
            seen.add(key)
            target.append(it)
            used += cost

    take(retrieved, memory_line, ctx.memories)
    take(relations, relation_line, ctx.relations)
    take(profile, memory_line, ctx.profile)
    if summary and used + count_tokens(summary) <= budget:
        ctx.summary = summary
        used += count_tokens(summary)
    take(episodes, episode_line, ctx.episodes)
    ctx.tokens = used
    return ctx
