"""The lexical side of search: Korean (Kiwi) and English tokens, BM25, and one index cache."""

from memoir_desktop.core.lexical.bm25 import BM25Index
from memoir_desktop.core.lexical.indexes import LexicalIndexes
from memoir_desktop.core.lexical.tokens import (
           MAX_ANALYSED_CHARS,
           stem_english,
           tokenize,
           tokenize_many,
           warm_up,
)

__all__ = ["MAX_ANALYSED_CHARS", "BM25Index", "LexicalIndexes", "stem_english", "tokenize", "tokenize_many",
           "warm_up"]
