"""Where a user's LLM can live: presets for the OpenAI-compatible servers people run, finding one
already running on this computer, the models a server offers (GET /v1/models), and how long a
server near the diarist may take to answer."""

from __future__ import annotations

import ipaddress
import logging
import socket
from concurrent.futures import ThreadPoolExecutor
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

# The ports the servers people run listen on by default, looked at by "Find on this computer". Two
# servers share 8080 (llama.cpp and LocalAI); LocalAI is often moved to 8081 beside a llama.cpp.
LOCAL_PORTS: tuple[tuple[int, str, str], ...] = (  # (port, preset key, label)
    (11434, "ollama", "Ollama"),
    (8080, "llamacpp", "llama.cpp server or LocalAI"),
    (1234, "lmstudio", "LM Studio"),
    (8000, "vllm", "vLLM"),
    (8081, "custom", "LocalAI"),
    (1337, "jan", "Jan"),
    (5000, "custom", "text-generation-webui"),
)

# A model on the diarist's own computer or network shares a CPU or a small GPU and answers one request
# at a time: a long entry on a small model takes minutes. A remote service answering in a minute is
# the norm, and waiting longer on one that does not only delays the retry.
NEARBY_TIMEOUT_S = 300.0
REMOTE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Found:
    preset: Preset
    base_url: str
    models: tuple[str, ...]
    label: str = ""  # what answered, when the preset does not say it (LocalAI, text-generation-webui)

    @property
    def name(self) -> str:
        return self.label or self.preset.label


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


def is_nearby(base_url: str | None) -> bool:
    """On this computer or on the local network (a private address, a .local / .lan name)."""
    if not base_url:
        return False
    if is_local(base_url):
        return True
    host = (urlparse(base_url if "://" in base_url else "http://" + base_url).hostname or "").lower()
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host.endswith((".local", ".lan", ".home.arpa", ".internal"))
    return ip.is_private or ip.is_loopback or ip.is_link_local


def default_timeout(base_url: str | None) -> float:
    """Seconds to wait for one reply when the settings leave it to memoir."""
    return NEARBY_TIMEOUT_S if is_nearby(base_url) else REMOTE_TIMEOUT_S


def is_listening(base_url: str | None, timeout: float = 0.5) -> bool:
    """Whether anything accepts a connection at the URL's host and port (a server that crashed does not)."""
    if not base_url:
        return True
    parsed = urlparse(base_url)
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        with socket.create_connection((parsed.hostname or "localhost", port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


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


def local_candidates() -> list[tuple[Preset, str, str]]:
    """(preset, base URL, label) for every usual port on this computer (LOCAL_PORTS)."""
    out = []
    for port, key, label in LOCAL_PORTS:
        preset = BY_KEY[key]
        url = preset.base_url if preset.base_url and urlparse(preset.base_url).port == port \
            else f"http://localhost:{port}/v1"
        out.append((preset, url, "" if label == preset.label else label))
    return out


def discover_local(candidates: list[tuple] | None = None, *, timeout: float = 0.5) -> list[Found]:
    """Servers on this computer that answer their model list, in the order of `candidates` (default:
    LOCAL_PORTS), each (preset, base URL) or (preset, base URL, label). All asked at once: a closed port refuses at once, but a server busy generating may
    take the whole `timeout` to list its models, and seven of those one after the other add up."""
    rows = [(c[0], c[1], c[2] if len(c) > 2 else "") for c in (candidates or local_candidates())]

    def ask(row: tuple[Preset, str, str]) -> Found | None:
        preset, url, label = row
        try:
            return Found(preset, url, tuple(list_models(url, timeout=timeout)), label)
        except (httpx.HTTPError, ValueError):
            return None

    if not rows:
        return []
    with ThreadPoolExecutor(max_workers=len(rows), thread_name_prefix="find-llm") as pool:
        return [f for f in pool.map(ask, rows) if f is not None]


def _same_server(a: str, b: str) -> bool:
    ua, ub = urlparse(a), urlparse(b)
    return ua.port == ub.port and (ua.hostname in LOCAL_HOSTS) == (ub.hostname in LOCAL_HOSTS) \
        and (ua.hostname in LOCAL_HOSTS or ua.hostname == ub.hostname)
