"""Context assembly for the companion's answer: a hot path always present (profile,
running summary, recent messages) and a cold path of retrieved memories, cut to a token
budget. Every memory carries its date, and the prompt carries today's date."""

from __future__ import annotations

from dataclasses import dataclass, field

from memoir_desktop.core.tokens import count_tokens


@dataclass
class Context:
    profile: list[dict] = field(default_factory=list)
    summary: str = ""
    memories: list[dict] = field(default_factory=list)
    tokens: int = 0

    def render(self) -> str:
        parts = []
        if self.summary:
            parts.append("What you know of the user so far (summary):\n" + self.summary)
        if self.profile:
            parts.append("Profile (always true unless contradicted):\n" + "\n".join(
                _line(m) for m in self.profile))
        if self.memories:
            parts.append("Memories relevant to this message:\n" + "\n".join(_line(m) for m in self.memories))
        else:
            parts.append("Memories relevant to this message: (none found)")
        return "\n\n".join(parts)


def _line(m: dict) -> str:
    about = f", about {m['about'][0]}" + (f"~{m['about'][1]}" if m["about"][1] != m["about"][0] else "") \
        if m.get("about") else ""
    return f"- [{m['created_at'][:10]}{about}] {m['memory']}"


def assemble(*, summary: str, profile: list[dict], retrieved: list[dict], budget: int) -> Context:
    """Fill the budget in priority order: retrieved memories first, then profile, then summary.

    Retrieved memories answer the question at hand; the profile and summary are background.
    """
    ctx = Context()
    used = 0
    seen = set()
    for m in retrieved:
        cost = count_tokens(_line(m)) + 1
        if m["id"] in seen or used + cost > budget:
            continue
        seen.add(m["id"])
        ctx.memories.append(m)
        used += cost
    for m in profile:
        cost = count_tokens(_line(m)) + 1
        if m["id"] in seen or used + cost > budget:
            continue
        seen.add(m["id"])
        ctx.profile.append(m)
        used += cost
    if summary:
        cost = count_tokens(summary)
        if used + cost <= budget:
            ctx.summary = summary
            used += cost
    ctx.tokens = used
    return ctx
