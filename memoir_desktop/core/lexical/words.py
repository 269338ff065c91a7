"""Does a query say anything in a language? ("xyzzy", "asdf qwer", "4821", "lorem ipsum", "쀍뛟" do not.)

The search field lists nothing for such a query where the journal does not have its words: its
dense similarities say nothing (multilingual-e5 scores a made-up word against a diary as high as
a paraphrase), so only the words can tell. A word is real when:
- Korean: Kiwi knows the morpheme. An unknown word gets its tag's placeholder id (below
  `_KIWI_FIRST_WORD`, where Kiwi's own symbols, letters and numbers also sit), a known one its own.
- English: it is one of the whole words of BERT's uncased wordpiece vocabulary (30k pieces, about
  20k whole words: "fox", "allergic", not "lorem", "asdf"), kept in english_words.txt beside this
  file (packaging/make_english_words.py made it), so it is there in every install. Should that file
  be missing, any word of two letters or more with a vowel counts (never stricter than before).
Numbers, symbols and emoji alone are not words (a time such as "2025년" is read as a time elsewhere).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from importlib import resources

from memoir_desktop.core.lexical.tokens import morphemes
from memoir_desktop.core.script import has_hangul

log = logging.getLogger(__name__)

_KIWI_FIRST_WORD = 64
_CONTENT = ("NNG", "NNP", "VV", "VA", "MAG", "XR", "MM", "NP", "IC")
_LATIN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
WORDS_FILE = "english_words.txt"  # a header line (#: its source and licence), then a word a line


@lru_cache(maxsize=1)
def _english() -> frozenset[str] | None:
    try:
        text = resources.files("memoir_desktop.core.lexical").joinpath(WORDS_FILE).read_text("utf-8")
    except OSError as exc:
        log.warning("English word list %s unavailable (%s); every English word with a vowel counts",
                    WORDS_FILE, exc.__class__.__name__)
        return None
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def _english_word(word: str) -> bool:
    vocab = _english()
    w = word.lower().split("'")[0]
    if vocab is None:
        return len(w) > 1 and any(c in "aeiouy" for c in w)
    return w in vocab or (w.endswith("s") and w[:-1] in vocab)


def says_something(text: str) -> bool:
    """Whether `text` is mostly words of Korean or English: more than half of its words are real
    ("dolor sit amet" has one real word in three, "the quick brown fox" four in four; a name the
    journal has is found by its letters before this is asked)."""
    real = total = 0
    for chunk in (text or "").split():
        if has_hangul(chunk):
            total += 1
            real += any(tag.split("-")[0] in _CONTENT and word_id >= _KIWI_FIRST_WORD
                        for _form, tag, word_id in morphemes(chunk, ids=True))
        for word in _LATIN.findall(chunk):
            total += 1
            real += _english_word(word)
    return real * 2 > total
