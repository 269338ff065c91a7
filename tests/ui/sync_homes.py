"""Computers of one diarist for the sync screens' tests: journals with the passphrase sync needs (no AI:
nothing but sync writes to them), joined through a folder they share or a WebDAV server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from memoir_desktop.core import Memoir

PASS = "a long journal passphrase"


def open_journal(home: Path, **overrides) -> Memoir:
    return Memoir.open(home, passphrase=PASS, **{"llm_base_url": None, **overrides})


def join(place: str, home: Path) -> Memoir:
    """A second computer: its journal made from what the first put in the sync place."""
    return Memoir.join(place, PASS, home=home, llm_base_url=None)


def texts(mem: Memoir) -> list[str]:
    return sorted(e["content"] for e in mem.journal.entries())


def set_sync_url(mem: Memoir, url: str) -> None:
    """The address as Settings → Sync saves it (the file and the running journal)."""
    from memoir_desktop.core import config

    config.persist(mem.home, mem.settings, sync_url=url)
