"""A rule-based router for the read path (Korean and English).

Deciding costs nothing and runs before any retrieval: a greeting or a plain
acknowledgement needs no memory search at all; recall words add the episodic source
(past journal messages); relation words add the graph source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_GREETING = re.compile(
    r"^\s*(?:안녕(?:하세요|하십니까)?|하이|헬로|좋은\s*(?:아침|밤|하루)(?:이에요|입니다)?|"
    r"hi|hello|hey|yo|good\s+(?:morning|evening|night|afternoon)|"
    r"고마워(?:요)?|감사(?:합니다|해요)?|ㄱㅅ|ㅇㅋ|ㅇㅇ|응|네|예|그래(?:요)?|알았어(?:요)?|알겠(?:어요|습니다)|좋아(?:요)?|"
    r"오케이|ok(?:ay)?|thanks?(?:\s+you)?|thx|sure|cool|nice|great|got\s+it|bye|잘\s*자|잘\s*가|"
    r"ㅋ+|ㅎ+|lol|haha+)\s*[.!~?…ㅎㅋ:)\s]*$",
    re.I,
)
_RECALL = re.compile(
    r"이전에|예전에|전에|지난번|저번에|기억|했었|였었|었었|말했|얘기했|적었|썼던|그때|"
    r"remember|recall|last\s+time|before|earlier|previously|did\s+i\s+(?:say|tell|write|mention)|used\s+to",
    re.I,
)
_RELATION = re.compile(
    r"누구|누가|관련(?:된|있는)?|관계|사이|어떤\s*사람|같이|함께|친구|가족|동료|"
    r"\bwho\b|\bwhom\b|related|relationship|connected|friends?\b|family|colleague|together\s+with",
    re.I,
)


@dataclass
class Route:
    retrieve: bool = True
    sources: list[str] = field(default_factory=lambda: ["dense", "lexical"])
    reason: str = "default: facts"


def route(text: str, *, graph_enabled: bool = True) -> Route:
    t = (text or "").strip()
    if not t or _GREETING.match(t):
        return Route(retrieve=False, sources=[], reason="greeting or acknowledgement")
    r = Route()
    reasons = []
    if _RECALL.search(t):
        r.sources.append("episodic")
        reasons.append("recall words: episodic")
    if graph_enabled and _RELATION.search(t):
        r.sources.append("graph")
        reasons.append("relation words: graph")
    if reasons:
        r.reason = "; ".join(reasons)
    return r
