"""Evaluation journals are throw-away temporary folders: they are encrypted like any new journal,
under a random passphrase that lives in this process's environment only (no keyring needed)."""

from __future__ import annotations

import os
import secrets

from memoir_desktop.core.keys.crypto import ENV_PASSPHRASE


def throwaway_passphrase() -> None:
    """Set MEMOIR_PASSPHRASE for this process when it is not set (never written anywhere)."""
    os.environ.setdefault(ENV_PASSPHRASE, "eval-" + secrets.token_urlsafe(16))
