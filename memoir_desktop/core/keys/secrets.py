"""The API key: OS keyring first, environment for headless use, a session-only fallback.

Never written to settings, logs or exports. Where no keyring backend exists (keyring then
raises NoKeyringError) the key can still be used for this session only, and callers are
told so in words they can show the user.
"""

from __future__ import annotations

import logging
import os
from urllib.parse import urlsplit

import keyring
from keyring.errors import KeyringError, NoKeyringError, PasswordDeleteError

log = logging.getLogger(__name__)

SERVICE = "memoir-desktop"
ACCOUNT = "llm-api-key"
ENV_KEY = "MEMOIR_LLM_API_KEY"

_session_key: str | None = None


class KeyStorage:
    """Result of a save: where the key went, and a sentence for the user."""

    def __init__(self, where: str, message: str):
        self.where, self.message = where, message


def get_api_key() -> str | None:
    if os.environ.get(ENV_KEY):
        return os.environ[ENV_KEY]
    if _session_key:
        return _session_key
    try:
        return keyring.get_password(SERVICE, ACCOUNT)
    except (NoKeyringError, KeyringError, RuntimeError) as exc:
        log.info("no keyring available (%s)", exc.__class__.__name__)
        return None


OPENAI_DEFAULT = "https://api.openai.com/v1"


def endpoint_of(base_url: str | None) -> str:
    """scheme://host:port of an LLM base URL (the OpenAI default when empty): what a key is for."""
    parts = urlsplit((base_url or "").strip() or OPENAI_DEFAULT)
    host = (parts.hostname or "").lower()
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{host}{port}"


def key_for(base_url: str | None, saved_for: str) -> str | None:
    """The key to send to `base_url`: the environment's always (the user set it for this run), the
    saved one only to the endpoint it was saved for."""
    if os.environ.get(ENV_KEY):
        return os.environ[ENV_KEY]
    if saved_for and saved_for != endpoint_of(base_url):
        return None
    return get_api_key()


def set_api_key(key: str | None) -> KeyStorage:
    global _session_key
    key = (key or "").strip() or None
    try:
        if key is None:
            try:
                keyring.delete_password(SERVICE, ACCOUNT)
            except PasswordDeleteError:
                pass
            _session_key = None
            return KeyStorage("keyring", "API key removed.")
        keyring.set_password(SERVICE, ACCOUNT, key)
        _session_key = None
        return KeyStorage("keyring", "API key saved in the system keyring.")
    except (NoKeyringError, KeyringError, RuntimeError):
        _session_key = key
        return KeyStorage(
            "session",
            "This computer has no system keyring, so the key is kept only until memoir closes.",
        )


def keyring_available() -> bool:
    try:
        backend = keyring.get_keyring()
    except Exception:
        return False
    return getattr(backend, "priority", 0) > 0 and "fail" not in type(backend).__module__


# -- the sync server's login (core/sync/target.py): kept like the API key, in the OS keyring ----------

def get_sync_login(url: str) -> tuple[str, str] | None:
    """(user, password) saved for a sync address, or None."""
    try:
        stored = keyring.get_password(SERVICE, f"sync:{url}")
    except (NoKeyringError, KeyringError, RuntimeError):
        return None
    if not stored or "\n" not in stored:
        return None
    user, password = stored.split("\n", 1)
    return user, password


def set_sync_login(url: str, user: str | None, password: str | None = None) -> bool:
    """Save (or, with no user, remove) the login of a sync address; False when there is no keyring."""
    try:
        if not user:
            try:
                keyring.delete_password(SERVICE, f"sync:{url}")
            except PasswordDeleteError:
                pass
            return True
        keyring.set_password(SERVICE, f"sync:{url}", f"{user}\n{password or ''}")
        return True
    except (NoKeyringError, KeyringError, RuntimeError):
        return False
