"""Where a user's LLM can live: presets for the OpenAI-compatible servers people run, finding one
already running on this computer, and the models a server offers (GET /v1/models)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Preset:
    key: str
    label: str
    base_url: str  # "" for OpenAI's own endpoint (the SDK default)
    local: bool  # runs on this computer: nothing leaves it
    models: tuple[str, ...] = ()  # suggestions until the server lists its own


PRESETS: tuple[Preset, ...] = (
    Preset("openai", "OpenAI", "", False, ("gpt-4o-mini", "gpt-4.1-mini", "gpt-4o")),
    Preset("ollama", "Ollama", "http://localhost:11434/v1", True, ("qwen2.5:7b", "llama3.1:8b", "gemma2:9b")),
    Preset("lmstudio", "LM Studio", "http://localhost:1234/v1", True),
    Preset("llamacpp", "llama.cpp server", "http://localhost:8080/v1", True),
    Preset("jan", "Jan", "http://localhost:1337/v1", True),
    Preset("vllm", "vLLM", "http://localhost:8000/v1", True),
    Preset("custom", "Other OpenAI-compatible server", "", False),
)
BY_KEY = {p.key: p for p in PRESETS}
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


@dataclass(frozen=True)
class Found:
    preset: Preset
    base_url: str
    models: tuple[str, ...]


def preset_for(base_url: str | None) -> Preset:
    """The preset a saved URL belongs to (by its port on this computer), else custom/OpenAI."""
    if not base_url:
        return BY_KEY["openai"]
    for p in PRESETS:
        if p.base_url and _same_server(p.base_url, base_url):
            return p
    return BY_KEY["custom"]


def is_local(base_url: str | None) -> bool:
    """Whether requests to this URL stay on this computer."""
    if not base_url:
        return False
    host = urlparse(base_url).hostname or ""
    return host in LOCAL_HOSTS or host.endswith(".localhost")


def list_models(base_url: str, api_key: str | None = None, *, timeout: float = 3.0) -> list[str]:
    """Model ids the server offers; raises httpx.HTTPError (or ValueError on a non-list answer)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    url = base_url.rstrip("/") + "/models"
    r = httpx.get(url, headers=headers, timeout=timeout)
    r.raise_for_status()
    data = r.json()
    rows = data.get("data") if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise ValueError("the server's model list is not a list")
    # Ollama's native /api/tags shape ("models": [{"name"}]) is accepted too.
    if isinstance(data, dict) and not rows and isinstance(data.get("models"), list):
        rows = data["models"]
    ids = [str(m.get("id") or m.get("name")) for m in rows if isinstance(m, dict) and (m.get("id") or m.get("name"))]
    return sorted(dict.fromkeys(ids))


def discover_local(candidates: list[tuple[Preset, str]] | None = None, *, timeout: float = 0.5) -> list[Found]:
    """Local servers that answer their model list. One after the other: on this computer a closed
    port refuses at once, so only a server that is up but slow costs up to `timeout`."""
    found = []
    for preset, url in candidates or [(p, p.base_url) for p in PRESETS if p.local]:
        try:
            found.append(Found(preset, url, tuple(list_models(url, timeout=timeout))))
        except (httpx.HTTPError, ValueError):
            continue
    return found


def _same_server(a: str, b: str) -> bool:
    ua, ub = urlparse(a), urlparse(b)
    return ua.port == ub.port and (ua.hostname in LOCAL_HOSTS) == (ub.hostname in LOCAL_HOSTS) \
        and (ua.hostname in LOCAL_HOSTS or ua.hostname == ub.hostname)
