"""Connecting an LLM as the user does it in Settings: is the configured one answering, how would an
unsaved one be asked (its models and the mode the probe finds), which servers already run here."""

from __future__ import annotations

from memoir_desktop.core.keys import secrets
from memoir_desktop.core.llm import disclosure, servers
from memoir_desktop.core.llm.client import LLMClient
from memoir_desktop.core.llm.errors import LLMError, LLMUnavailable
from memoir_desktop.core.llm.modes import MODE_LABELS


def make_gate(settings, engine, metric_sink, probe_cache):
    """The gate every feature holds (never the client): each request is cleared there (gate.py). The key
    goes only to the endpoint it was saved for (secrets.key_for)."""
    from memoir_desktop.core.llm.gate import Gate, PrivacyLens

    client = LLMClient(base_url=settings.llm_base_url or None,
                       api_key=secrets.key_for(settings.llm_base_url, settings.llm_key_endpoint),
                       model=settings.llm_model, timeout=settings.llm_timeout_s, max_retries=settings.llm_max_retries,
                       metric_sink=metric_sink, probe_cache=probe_cache)
    return Gate(client, PrivacyLens(engine))


def check(gate) -> bool | None:
    """True when the configured LLM answers, False when it does not, None when none is set."""
    if not gate.configured:
        return None
    try:
        gate.ping()
    except LLMError:
        return False
    return True


def test(settings, probe_cache, base_url: str | None, model: str, api_key: str | None = None) -> dict:
    """Try unsaved connection settings: the server's models and how it answers best (the probe result
    is remembered, so saving these settings needs no second probe). Raises LLMUnavailable with a
    sentence fit to show."""
    key = api_key if api_key is not None else secrets.key_for(base_url, settings.llm_key_endpoint)
    client = LLMClient(base_url=base_url or None, api_key=key or None, model=model, timeout=15,
                       max_retries=0, probe_cache=probe_cache)
    if not client.configured:
        raise LLMUnavailable("no API key and no server URL")
    models = client.list_models()
    caps = client.probe(force=True)
    return {"model": model, "models": models, "mode": caps.mode, "mode_label": MODE_LABELS[caps.mode]}


def find_local() -> list[dict]:
    """OpenAI-compatible servers already running on this computer (Ollama, LM Studio, …)."""
    return [{"preset": f.preset.key, "label": f.preset.label, "base_url": f.base_url, "models": list(f.models)}
            for f in servers.discover_local()]


class Connection:
    """The `Connection` part: the LLM as the user connects it (Settings → AI companion): whether one is
    configured and answering, how it is asked, unsaved settings tried, servers found on this computer,
    and what is sent to it."""

    def __init__(self, *, llm, settings, probe_cache):
        self._llm, self._settings, self.probe_cache = llm, settings, probe_cache

    @property
    def configured(self) -> bool:
        return bool(self._llm().configured)

    @property
    def mode(self) -> str | None:
        """How the configured LLM is asked (the probe's mode), None before the first probe."""
        caps = self._llm().capabilities
        return caps.mode if caps else None

    def check(self) -> bool | None:
        """True when the configured LLM answers, False when it does not, None when none is set."""
        return check(self._llm())

    def test(self, base_url: str | None, model: str, api_key: str | None = None) -> dict:
        """Try unsaved connection settings (see `test`). Raises LLMUnavailable with a sentence fit to show."""
        return test(self._settings(), self.probe_cache, base_url, model, api_key)

    @staticmethod
    def find_local() -> list[dict]:
        """OpenAI-compatible servers already running on this computer (Ollama, LM Studio, …)."""
        return find_local()

    def disclosure(self) -> disclosure.Disclosure:
        """What is sent to the LLM endpoint, and when (nothing when no LLM is set)."""
        settings = self._settings()
        return disclosure.describe(settings.llm_base_url, self.configured, settings)
