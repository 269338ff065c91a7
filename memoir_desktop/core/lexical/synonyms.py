"""Query expansion from the synonym table (lexical/synonym_table.py).

A query names a term of a group when it holds every token of the term (Kiwi morphemes, so
"회사를 옮겼다" names 회사를 옮기다) or, for a term Kiwi takes apart oddly (냥이, 엄빠), when the
term's letters appear in the query as written. The expansion is the tokens of the group's other
terms, and of the specific terms a general one covers; search weighs them below the query's own
words (EXPANSION_WEIGHT in search/query.py), so an entry saying what was asked still ranks first.
"""

from __future__ import annotations

from functools import lru_cache

from memoir_desktop.core.lexical.synonym_table import COVERS, SAME
from memoir_desktop.core.lexical.tokens import tokenize

# One-syllable tokens are mostly verb stems everything shares (가, 오, 좋, 먹) or nouns with
# several everyday meanings (이: tooth / this, 눈: eye / snow, 차: car / tea): they neither name
# a term nor are added, or every query touching them would drag in unrelated entries. These
# one-syllable nouns mean one thing in a diary and are kept.
SHORT_KEPT = frozenset("술 잠 밥 집 돈 책 빚 침 개 펫 폰 애".split())


def _usable(token: str) -> bool:
    return len(token) > 1 or token in SHORT_KEPT


class _Term:
    __slots__ = ("tokens", "words", "surface")

    def __init__(self, text: str):
        # A term names a query by its tokens only when each of its words gave one ("이를 뽑다"
        # without 이 would be any 뽑다). A one-word term needs all of its tokens, none of them a
        # bare syllable (반려묘 splits into 반려 + 묘, and 반려 alone is also 반려견); the words of
        # a phrase together are specific enough (살 + 빼). Each word expands to its first token,
        # the word itself when Kiwi gave a compound and its parts (핸드폰: 핸드폰, 핸드), all of
        # its tokens when it gave parts only (남자친구: 남자, 친구).
        words = [tokenize(word) for word in text.split()]
        firsts = [w[0] for w in words if w]
        own = [t for w in words for t in (w[:1] if all(p in w[0] for p in w[1:]) else w)]
        if len(firsts) < len(words):
            self.tokens: tuple[str, ...] = ()
        elif len(words) == 1:
            self.tokens = tuple(words[0]) if all(map(_usable, words[0])) else ()
        else:
            self.tokens = tuple(firsts)
        self.words = tuple(t for t in dict.fromkeys(own) if _usable(t))
        compact = text.replace(" ", "").lower()
        self.surface = compact if len(compact) >= 2 else ""

    def named_by(self, tokens: frozenset[str], surface: str) -> bool:
        if self.tokens and all(t in tokens for t in self.tokens):
            return True
        return bool(self.surface) and self.surface in surface

    def expansion(self) -> tuple[str, ...]:
        return self.words


def _terms(line: str) -> list[_Term]:
    return [_Term(t.strip()) for t in line.split("/") if t.strip()]


@lru_cache(maxsize=1)
def _table() -> list[tuple[list[_Term], list[_Term]]]:
    """(terms that name the entry, terms it expands to) per group and per covering term."""
    out: list[tuple[list[_Term], list[_Term]]] = []
    for line in SAME.strip().splitlines():
        terms = _terms(line)
        for i, term in enumerate(terms):
            out.append(([term], terms[:i] + terms[i + 1:]))
    for line in COVERS.strip().splitlines():
        general, _, specific = line.partition(":")
        out.append((_terms(general), _terms(specific)))
    return out


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, list[int]], dict[str, list[tuple[str, int]]]]:
    """Where to look: the table's entries by a token of a naming term, and by the first two letters of
    a term matched as written. Scanning the whole table cost 1.4 ms of a search; a query now checks
    only the entries one of its tokens or letter pairs points to (0.04 ms, the same expansions on the
    1,630 Korean lines of the dev sets)."""
    by_token: dict[str, list[int]] = {}
    by_start: dict[str, list[tuple[str, int]]] = {}
    for at, (names, _) in enumerate(_table()):
        for term in names:
            if term.tokens:  # named only with all of them: one is enough to be a candidate
                by_token.setdefault(term.tokens[0], []).append(at)
            if term.surface:
                by_start.setdefault(term.surface[:2], []).append((term.surface, at))
    return by_token, by_start


def _candidates(have: frozenset[str], surface: str) -> list[int]:
    by_token, by_start = _index()
    found = {at for token in have for at in by_token.get(token, ())}
    for i in range(len(surface) - 1):
        found.update(at for term, at in by_start.get(surface[i:i + 2], ()) if surface.startswith(term, i))
    return sorted(found)  # the table's order, as a full scan gave


def _has_hangul(text: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" or "\u3131" <= ch <= "\u318e" for ch in text)


def expand(text: str, tokens: list[str]) -> list[str]:
    """Tokens meaning what the query says in other words, none of the query's own.

    The table is Korean vocabulary (its few Latin terms, PC or KTX, sit in Korean groups): a
    query with no Hangul is not expanded, and does not pay for analysing the table with Kiwi
    (seconds at the first query of a process)."""
    if not _has_hangul(text):
        return []
    have = frozenset(tokens)
    surface = text.replace(" ", "").lower()
    extra: dict[str, None] = {}
    table = _table()
    for at in _candidates(have, surface):
        names, others = table[at]
        if any(term.named_by(have, surface) for term in names):
            for other in others:
                for token in other.expansion():
                    if token not in have:
                        extra[token] = None
    return list(extra)
