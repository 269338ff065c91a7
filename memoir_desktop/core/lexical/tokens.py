"""Tokenization for the sparse (lexical) side of hybrid retrieval, Korean first (BM25 is in bm25.py).

Tokens
------
Korean goes through Kiwi (kiwipiepy), a morphological analyser that runs offline. Only
content morphemes are kept, so particles and endings never decide a match:

* nouns ``NNG`` and ``NNP``; bound nouns ``NNB`` (것, 수, 중, 개 ...) are dropped as
  grammatical glue, as are pronouns ``NP`` and numerals ``NR``;
* verb and adjective stems ``VV``/``VA`` (and their irregular ``-I``/``-R`` variants) with
  no marker, so "마셨다", "마시는" and "마시고" all give ``마시``; the handful of light
  stems that carry no topic (하, 되, 있, 없, 않, 같 ...) are dropped;
* roots ``XR`` (조용, 깨끗), which is what "조용하다"/"조용히" share.

Compound nouns: Kiwi already splits most compounds the same way spaced or not
("디카페인커피" and "디카페인 커피" both give 디/카페인/커피), but it keeps lexicalised
compounds whole (김치찌개, 초등학교, 한강공원, 스마트폰), so "김치 찌개" would not match
"김치찌개" at all. For a noun of three or more syllables that Kiwi left whole we ask Kiwi
again with that noun blocked; if it then reads as nouns only (a trailing suffix such as
원/화 allowed) with no one-syllable part before the last, the parts of two or more
syllables are added after the whole noun ("김치찌개" -> 김치찌개, 김치, 찌개). Noun
character bigrams were tried instead and rejected: on a small set of spacing/part
queries they found the wanted entry about as often (MRR 0.97 vs 0.95; 0.58 with neither)
but also returned more wrong ones (precision 0.60 vs 0.75), because cross-boundary bigrams
are often real words (운동화 -> 동화, 수영장 -> 영장, 스마트폰 -> 마트).

Everything that is not Hangul is tokenized without Kiwi, by the same code whether the
text is English-only or mixed, so a word always gives the same token: letters and
digits runs, casefolded, one-letter words and a small English stopword list dropped,
numbers without leading zeros, Chinese characters and kana as overlapping character
bigrams. English words get a light, inflection-only stemmer (plural -s/-es/-ies, -ed,
-ing, final -e, y/i, and a short list of irregular verbs and plurals), so "hiking",
"hikes", "hiked" and "hike" all give ``hike`` and "ran"/"running"/"runs" give ``run``.
Derivational suffixes (-ness, -ation, -ful) are left alone: stripping them merges words
that differ in meaning.

Input safety: text is NFKC-normalised; control characters (NUL included) and lone
surrogates become spaces; zero-width characters are dropped; runs of one repeated
character are cut to four; non-whitespace runs are broken every 64 characters and texts
are analysed in pieces of about 1,000 characters, because Kiwi's time grows faster than
linearly on long unbroken input. Only the first ``MAX_ANALYSED_CHARS`` characters of a text are analysed:
20,000 characters is about ten pages, far beyond a memory or a journal entry (the dense
embedder sees only a few hundred tokens); a 1 MB paste would otherwise cost seconds of
analysis for a document BM25's length normalisation ranks low anyway.

Threads: one Kiwi instance per process, created lazily and used only under
``_KIWI_LOCK`` (Kiwi objects are not documented as thread-safe). Bulk analysis takes the
lock in slices so a query from another thread waits at most one slice. If Kiwi cannot
be loaded (a broken install, a frozen app missing its model), Hangul falls back to
character bigrams with a logged warning, so Korean search degrades but never breaks.
``BM25Index`` guards its own state with a lock; tokenization runs outside it.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

MAX_ANALYSED_CHARS = 20_000
_CHUNK_CHARS = 1_000  # texts are fed to Kiwi in pieces of about this size
_SLICE_CHUNKS = 64  # pieces analysed per lock hold in bulk mode: what a query may wait for
_RUN_BREAK = 64  # a space is inserted after every this many non-space characters

# --------------------------------------------------------------------------- normalising

_SURROGATE = re.compile("[\ud800-\udfff]")
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_REPEAT = re.compile(r"([^\d\s])\1{4,}")  # "ㅋㅋㅋㅋㅋㅋㅋ" -> "ㅋㅋㅋㅋ"; digits are kept
_LONG_RUN = re.compile(rf"(\S{{{_RUN_BREAK}}})(?=\S)")
_SPACES = re.compile(r"\s+")


def _prepare(text: str) -> str:
    if not text:
        return ""
    if not isinstance(text, str):
        text = str(text)
    text = text[:MAX_ANALYSED_CHARS]
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(" ", text)
    text = unicodedata.normalize("NFKC", text)[:MAX_ANALYSED_CHARS]
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub(" ", text)
    text = _REPEAT.sub(r"\1\1\1\1", text)
    text = _LONG_RUN.sub(r"\1 ", text)
    return _SPACES.sub(" ", text).strip()


# --------------------------------------------------------------------------- non-Hangul

_HANGUL_ANY = re.compile("[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff]+")
_HANGUL_SYLLABLE = re.compile("[\uac00-\ud7a3]")
_HANGUL_WORD = re.compile("[\uac00-\ud7a3]+")
_WORD = re.compile(r"[^\W_]+")
_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_ANY = re.compile(f"[{_CJK}]")
_CJK_SPLIT = re.compile(f"[{_CJK}]+|[^{_CJK}]+")

_EN_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves also cannot didn doesn don isn wasn weren ll ve re www http https com
"""
_EN_STOPWORDS = frozenset(_EN_STOPWORD_TEXT.split())

# Irregular forms worth catching in a personal journal; mapped to a base form that the
# regular stemmer then treats like any other word.
_EN_IRREGULAR = {
    "ran": "run", "went": "go", "gone": "go", "goes": "go", "ate": "eat", "eaten": "eat",
    "bought": "buy", "brought": "bring", "thought": "think", "made": "make", "took": "take",
    "taken": "take", "saw": "see", "seen": "see", "felt": "feel", "met": "meet",
    "slept": "sleep", "swam": "swim", "swum": "swim", "wrote": "write", "written": "write",
    "drove": "drive", "driven": "drive", "began": "begin", "begun": "begin", "got": "get",
    "gotten": "get", "gave": "give", "given": "give", "came": "come", "told": "tell",
    "said": "say", "sang": "sing", "sung": "sing", "taught": "teach", "caught": "catch",
    "kept": "keep", "lost": "lose", "paid": "pay", "sent": "send", "spent": "spend",
    "built": "build", "sat": "sit", "stood": "stand", "wore": "wear", "worn": "wear",
    "fell": "fall", "fallen": "fall", "flew": "fly", "flown": "fly", "grew": "grow",
    "grown": "grow", "knew": "know", "known": "know", "threw": "throw", "drank": "drink",
    "drunk": "drink", "found": "find", "heard": "hear", "held": "hold", "slid": "slide",
    "children": "child", "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth",
    "mice": "mouse", "people": "person",
}  # fmt: skip

# Final forms the rules would get wrong (from Snowball's exception list).
_EN_EXCEPTIONS = {
    "sky": "sky", "skies": "sky", "news": "news", "dying": "die", "lying": "lie", "tying": "tie",
    "skis": "ski", "bias": "bias", "atlas": "atlas", "cosmos": "cosmos",
}  # fmt: skip

_VOWELS = frozenset("aeiou")


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem``."""
    m, prev_vowel = 0, False
    for i in range(len(stem)):
        vowel = not _is_consonant(stem, i)
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _ends_cvc(stem: str) -> bool:
    """consonant-vowel-consonant, the last not w/x/y: the shape of "hop", "hik", "writ"."""
    return (
        len(stem) >= 3
        and _is_consonant(stem, -3 + len(stem))
        and not _is_consonant(stem, len(stem) - 2)
        and _is_consonant(stem, len(stem) - 1)
        and stem[-1] not in "wxy"
    )


def stem_english(word: str) -> str:
    """Inflection-only stemming (Porter/Snowball steps 1a-1c and 5a) of a lower-case word.

    Not snowballstemmer: its full Porter2 also strips derivations, so "dependency" and "dependent"
    (and "organization" and "organize") become one word, and every token would change (each
    journal's index rebuilt, every recall figure measured again)."""
    if word in _EN_EXCEPTIONS:
        return _EN_EXCEPTIONS[word]
    word = _EN_IRREGULAR.get(word, word)
    if len(word) <= 2 or not (word.isascii() and word.isalpha()):
        return word
    # 1a: plurals and third person
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith(("ies", "ied")):
        word = word[:-3] + ("i" if len(word) > 4 else "ie")
    elif word.endswith(("xes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and _has_vowel(word[:-2]):
        word = word[:-1]
    # 1b: -ed / -ing
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ing", "ed"):
            if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
                word = word[: -len(suffix)]
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif len(word) >= 2 and word[-1] == word[-2] and word[-1] not in "aeiouylsz":
                    word = word[:-1]
                elif _measure(word) == 1 and _ends_cvc(word):
                    word += "e"
                break
    # 1c: y -> i after a consonant that is not the first letter (cry/cries/cried -> cri)
    if len(word) > 2 and word[-1] == "y" and word[-2] not in _VOWELS:
        word = word[:-1] + "i"
    # 5a: a final e goes unless it makes the short "hope"/"hike" shape
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _ends_cvc(stem)):
            word = stem
    return word


def _other_tokens(text: str) -> list[tuple[int, str]]:
    """(position, token) for everything that is not Hangul."""
    masked = _HANGUL_ANY.sub(lambda m: " " * len(m.group()), text)
    out: list[tuple[int, str]] = []
    for m in _WORD.finditer(masked):
        word, pos = m.group(), m.start()
        if _CJK_ANY.search(word):
            for part in _CJK_SPLIT.finditer(word):
                piece = part.group()
                if _CJK_ANY.match(piece):
                    grams = [piece] if len(piece) == 1 else [piece[i : i + 2] for i in range(len(piece) - 1)]
                    out.extend((pos + part.start() + i, g) for i, g in enumerate(grams))
                else:
                    tok = _word_token(piece)
                    if tok:
                        out.append((pos + part.start(), tok))
            continue
        tok = _word_token(word)
        if tok:
            out.append((pos, tok))
    return out


def _word_token(word: str) -> str | None:
    if word.isdigit():
        return word.lstrip("0") or "0"
    word = word.casefold()
    if len(word) == 1 or word in _EN_STOPWORDS:
        return None
    return stem_english(word)


# --------------------------------------------------------------------------- Korean (Kiwi)

_NOUN_TAGS = frozenset({"NNG", "NNP"})
_KEEP_TAGS = frozenset({"NNG", "NNP", "XR", "VV", "VA", "VV-I", "VA-I", "VV-R", "VA-R"})
_NOUN_SUFFIX_TAGS = frozenset({"NNB", "XSN"})
_KO_STOP_STEMS = frozenset(
    {"하", "되", "있", "없", "않", "같", "그렇", "이렇", "저렇", "어떻", "그러", "이러"}
)

_KIWI_LOCK = threading.Lock()
_kiwi = None
_kiwi_failed = False
_kiwi_match = None  # Kiwi's pattern matching, less #hashtag/@mention so "#여행" still gives 여행


def _kiwi_match_options() -> int:
    return int(_kiwi_match or 0)  # a Match flag; kiwipiepy's signature says int


def _kiwi_locked():
    """The process-wide Kiwi, loaded on first use; None if it cannot load. Hold the lock."""
    global _kiwi, _kiwi_failed, _kiwi_match
    if _kiwi is None and not _kiwi_failed:
        try:
            # In the try, on first Korean text: without Kiwi search still runs (whole words only).
            from kiwipiepy import Kiwi, Match

            _kiwi_match = Match.ALL & ~(Match.HASHTAG | Match.MENTION)
            # Without the multi-word dictionary. Its 252,000 Wikidata titles ("테드 창", "두 사람의
            # 거리 추정") read 시티팝 as "시티 팝" and 족저근막염 as "족저 근막염", and such a reading
            # (a space inside) gave no token: the line could not be found by that word. They also
            # took 1.6 of the 2.8 s the analyser needed before its first answer (a start-up that
            # holds the GIL, paid by every memoir-cli and app-server process). On the Korean dev
            # sets 3 of 1,630 lines were read differently, and recall did not move.
            _kiwi = Kiwi(load_multi_dict=False)
        except Exception:  # any failure: degrade to bigrams, never break search
            _kiwi_failed = True
            log.warning("Korean analyser (kiwipiepy) failed to load; using character bigrams", exc_info=True)
    return _kiwi


def warm_up() -> None:
    """Load the Korean analyser now (a couple of seconds the first time). Call off the UI thread.

    Kiwi's model load holds the GIL for its whole duration (about 1.2 s measured), so even a
    worker thread freezes the UI while it runs: do it behind a start-up/progress window."""
    with _KIWI_LOCK:
        kiwi = _kiwi_locked()
        if kiwi is not None:
            kiwi.tokenize("커피를 마셨다", match_options=_kiwi_match_options())


@lru_cache(maxsize=16_384)  # bounded: a few MB at most
def _compound_parts(kiwi, noun: str) -> tuple[str, ...]:
    """Parts of a compound noun Kiwi keeps whole, read by Kiwi with the whole blocked.

    Called with ``_KIWI_LOCK`` held. Empty when the noun does not split into nouns.
    """
    try:
        morphs = kiwi.tokenize(noun, match_options=_kiwi_match_options(), blocklist=[noun])
    except Exception:  # an odd noun must not break indexing
        log.debug("compound split failed for %r", noun, exc_info=True)
        return ()
    if len(morphs) < 2 or "".join(m.form for m in morphs) != noun:
        return ()
    if morphs[-1].tag in _NOUN_SUFFIX_TAGS:
        morphs = morphs[:-1]
    if not morphs or any(m.tag not in _NOUN_TAGS for m in morphs):
        return ()
    if any(len(m.form) < 2 for m in morphs[:-1]):
        return ()  # 유튜브 -> 유 + 튜브 is a misreading, not a compound
    return tuple(m.form for m in morphs if len(m.form) >= 2 and m.form != noun)


def _chunks(text: str) -> list[tuple[int, str]]:
    """Split prepared text at spaces into (offset, piece) of about ``_CHUNK_CHARS``."""
    out, start, n = [], 0, len(text)
    while start < n:
        end = start + _CHUNK_CHARS
        if end < n:
            space = text.rfind(" ", start + 1, end)
            end = space if space > start else end
        out.append((start, text[start:end]))
        start = end
    return out


def _korean_tokens_from(kiwi, morphs, offset: int) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for m in morphs:
        tag, form = m.tag, m.form
        if tag not in _KEEP_TAGS or not _HANGUL_WORD.fullmatch(form):
            continue
        if tag[0] == "V" and form in _KO_STOP_STEMS:
            continue
        pos = offset + m.start
        out.append((pos, form))
        if tag in _NOUN_TAGS and len(form) >= 3:
            out.extend((pos, part) for part in _compound_parts(kiwi, form))
    return out


def _bigram_fallback(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for m in _HANGUL_WORD.finditer(text):
        w, pos = m.group(), m.start()
        grams = [w] if len(w) == 1 else [w[i : i + 2] for i in range(len(w) - 1)]
        out.extend((pos + i, g) for i, g in enumerate(grams))
    return out


def _korean_tokens_many(texts: list[str]) -> list[list[tuple[int, str]]]:
    """Korean content tokens for prepared texts (those with Hangul), Kiwi's batch API."""
    results: list[list[tuple[int, str]]] = [[] for _ in texts]
    pieces = [
        (i, off, chunk)
        for i, t in enumerate(texts)
        if _HANGUL_SYLLABLE.search(t)
        for off, chunk in _chunks(t)
    ]
    for lo in range(0, len(pieces), _SLICE_CHUNKS):
        batch = pieces[lo : lo + _SLICE_CHUNKS]
        with _KIWI_LOCK:
            kiwi = _kiwi_locked()
            if kiwi is None:
                for i, off, chunk in batch:
                    results[i].extend((off + p, g) for p, g in _bigram_fallback(chunk))
                continue
            try:
                if len(batch) == 1:  # the batch API's thread hand-off costs more than it saves
                    analysed = [kiwi.tokenize(batch[0][2], match_options=_kiwi_match_options())]
                else:
                    texts_ = [chunk for _, _, chunk in batch]
                    analysed = list(kiwi.tokenize(texts_, match_options=_kiwi_match_options()))
                tokens = [
                    _korean_tokens_from(kiwi, morphs, off)
                    for (_, off, _), morphs in zip(batch, analysed, strict=True)
                ]
            except Exception:  # input Kiwi chokes on must not fail indexing: bigrams for this slice
                log.warning(
                    "Korean analysis failed; using character bigrams for %d pieces", len(batch), exc_info=True
                )
                tokens = [[(off + p, g) for p, g in _bigram_fallback(chunk)] for _, off, chunk in batch]
            for (i, _, _), found in zip(batch, tokens, strict=True):
                results[i].extend(found)
    return results


# --------------------------------------------------------------------------- public tokenizers


def tokenize_many(texts: Iterable[str]) -> list[list[str]]:
    """``tokenize`` for many texts at once, using Kiwi's batch (multi-threaded) analysis."""
    prepared = [_prepare(t) for t in texts]
    korean = _korean_tokens_many(prepared)
    out = []
    for text, ko in zip(prepared, korean, strict=True):
        merged = ko + _other_tokens(text) if ko else _other_tokens(text)
        merged.sort(key=lambda pt: pt[0])  # stable: a compound's parts stay after it
        out.append([tok for _, tok in merged])
    return out


def token_positions_many(texts: list[str]) -> list[list[tuple[int, str]] | None]:
    """(offset, token) for each text, in one analysis per text; None for a text whose preparation
    changed its length (cut repeats, dropped zero-width characters), where offsets would not line up."""
    prepared = [_prepare(t) for t in texts]
    korean = _korean_tokens_many(prepared)
    out: list[list[tuple[int, str]] | None] = []
    for original, text, ko in zip(texts, prepared, korean, strict=True):
        if len(text) != len(original):
            out.append(None)
            continue
        merged = ko + _other_tokens(text) if ko else _other_tokens(text)
        merged.sort(key=lambda pt: pt[0])
        out.append(merged)
    return out


def tokenize(text: str) -> list[str]:
    """Content tokens of ``text`` in reading order (Korean morphemes, stemmed words)."""
    return tokenize_many([text])[0]


def morphemes(text: str, *, ids: bool = False) -> list[tuple]:
    """Kiwi's (form, tag) for each morpheme of a short Hangul text, compounds whole ("결혼식" is
    not "결혼"), with Kiwi's morpheme id as a third item when `ids`; [] without Kiwi or Hangul. For
    reading what a sentence states (search/states.py) and whether its words exist (words.py)."""
    prepared = _prepare(text)
    if not _HANGUL_SYLLABLE.search(prepared):
        return []
    with _KIWI_LOCK:
        kiwi = _kiwi_locked()
        if kiwi is None:
            return []
        try:
            # One text in, one list of tokens out (kiwipiepy's signature also covers lists of texts).
            found: Any = kiwi.tokenize(prepared[:MAX_ANALYSED_CHARS], match_options=_kiwi_match_options())
            return [(m.form, m.tag, m.id) if ids else (m.form, m.tag) for m in found]
        except Exception:  # what Kiwi chokes on states nothing
            return []

