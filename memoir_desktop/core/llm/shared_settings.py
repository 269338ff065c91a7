"""The journal's own AI settings: what travels with it to every computer, never the API key.

A diarist sets the AI once, on one computer. The journal carries which server and model it uses and what
it is not to remember, so a computer that joins it (or one where no AI was ever set) uses the same and
asks only for the key, which stays in each computer's keyring. A computer whose AI was set there keeps
its own (a local server on the desk, another on the laptop); a later change on any computer with an AI
becomes the journal's, and the computers that follow the journal take it.

Kept in the database (Meta), so a sync round carries it as one record of kind "prefs" (sync/engine.py,
apply.py), merged like everything else: the later change wins.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from sqlmodel import Session

from memoir_desktop.core import config
from memoir_desktop.core.keys import secrets
from memoir_desktop.core.llm import servers
from memoir_desktop.core.storage.models import Meta

SHARED = ("llm_provider", "llm_base_url", "llm_model", "llm_timeout_s", "not_remembered", "mood_tracking")
META_KEY = "journal_settings"
FOLLOWS = "ai_from_journal"  # in Settings.extra: this computer's AI settings are the journal's
KIND, GID = "prefs", "journal"  # the one sync record that carries them


def of(settings: config.Settings) -> dict:
    return {name: json.loads(json.dumps(getattr(settings, name))) for name in SHARED}


def has_ai(settings: config.Settings) -> bool:
    """An AI is set: a server's address, or a key for the one the settings name."""
    return bool(settings.llm_base_url) or secrets.key_for(settings.llm_base_url, settings.llm_key_endpoint) is not None


def has_own_ai(settings: config.Settings) -> bool:
    """An AI was set on this computer, not taken from the journal."""
    return has_ai(settings) and not settings.extra.get(FOLLOWS)


def read(s: Session) -> dict | None:
    row = s.get(Meta, META_KEY)
    if row is None:
        return None
    try:
        values = json.loads(row.value)
    except ValueError:
        return None
    return {k: values[k] for k in SHARED if k in values} if isinstance(values, dict) else None


def write(s: Session, values: dict) -> None:
    text = json.dumps({k: values.get(k) for k in SHARED}, ensure_ascii=False, sort_keys=True)
    row = s.get(Meta, META_KEY)
    if row is None:
        s.add(Meta(key=META_KEY, value=text))
    elif row.value != text:
        row.value = text
        s.add(row)


def publish(engine, home: Path) -> bool:
    """The settings saved on this computer become the journal's, when an AI is set here and they differ (a
    computer that follows the journal publishes what the diarist changed there). An environment variable
    or a caller's override is for one run: never published."""
    saved = config.load_settings(home, apply_env=False)
    if not has_ai(saved):
        return False
    values = of(saved)
    with Session(engine) as s:
        if read(s) == values:
            return False
        write(s, values)
        s.commit()
    return True


def adopt(engine, home: Path, running: config.Settings) -> config.Settings | None:
    """The journal's settings taken here, when this computer has no AI of its own or follows the journal:
    saved in its settings file (marked as the journal's) and returned as the running settings to use;
    None when nothing changes. The key saved here, for another server, is never sent to the new one
    (secrets.key_for): the screens ask for this server's key."""
    with Session(engine) as s:
        shared = read(s)
    if not shared:
        return None
    saved = config.load_settings(home, apply_env=False)
    if has_own_ai(saved) or has_own_ai(running):
        return None
    if of(saved) == shared and saved.extra.get(FOLLOWS):
        return None
    for name, value in shared.items():
        setattr(saved, name, value)
    saved.extra = {**saved.extra, FOLLOWS: True}
    config.save_settings(home, saved)
    return replace(running, **shared, extra={**running.extra, FOLLOWS: True})


def needs_key(settings: config.Settings, has_key: bool | None = None) -> bool:
    """The journal's AI, taken from another computer, waits for this computer's API key: its server is
    not on this computer or its network, and no key for it is here (`has_key`: known by the caller, else
    looked up in the keyring)."""
    if not settings.extra.get(FOLLOWS) or servers.is_nearby(settings.llm_base_url):
        return False
    if has_key is None:
        has_key = secrets.key_for(settings.llm_base_url, settings.llm_key_endpoint) is not None
    return not has_key
