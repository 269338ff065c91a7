"""Connecting an LLM as the user does it in Settings: is the configured one answering, how would an
unsaved one be asked (its models and the mode the probe finds), how fast it is, which servers already
run here."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from memoir_desktop.core.keys import secrets
from memoir_desktop.core.llm import disclosure, modes, servers, shared_settings
from memoir_desktop.core.llm.client import LLMClient
from memoir_desktop.core.llm.errors import LLMError, LLMUnavailable, address
from memoir_desktop.core.llm.gate import Gate, PrivacyLens
from memoir_desktop.core.llm.modes import MODE_LABELS
from memoir_desktop.core.llm.probe import Speed
from memoir_desktop.core.llm.sorting_check import check_sorting

# The calls before an entry's memories are stored: (prompt tokens read, tokens written) for its facts,
# then for what to do with each. The graph's reading and the summary follow in jobs of their own, after
# the memories (pipeline/graph_job.py), and are not waited for. The prompts were measured with Qwen2.5
# 0.5B on llama.cpp (a two-sentence entry: 755 and 629 tokens); the replies, 17 to 76 tokens there,
# are counted for an entry of a few facts.
EXTRACTION_CALL = (800, 80)
SORTING_CALL = (650, 80)
# A server nearby has read the extraction's beginning before the entry is written (pipeline/read_ahead.py):
# what is left is the entry, today's date and the shape of the reply (Qwen2.5 0.5B read 3-5 s there).
EXTRACTION_READ_AHEAD = (200, 80)
# Kinds of failure after which there is no server to say anything more about.
NOT_REACHED = ("not_running", "unreachable", "disconnected", "timeout", "not_configured")


@dataclass
class ConnectionReport:
    """What the connection test found, step by step. `problem` is a sentence fit to show (empty when
    the model answers); `problem_kind` says it in one word (errors.explain)."""

    address: str
    model: str
    timeout_s: float
    reachable: bool = False
    models: list[str] = field(default_factory=list)
    mode: str | None = None
    verdicts: dict[str, str] = field(default_factory=dict)  # mode -> ok | refused: … | unusable: … | inconclusive: …
    first_token_s: float | None = None
    tokens_per_s: float | None = None
    seconds_per_entry: float | None = None
    problem: str = ""
    problem_kind: str = ""
    speed_problem: str = ""  # the speed could not be measured (the connection itself works)

    @property
    def ok(self) -> bool:
        return self.reachable and self.mode is not None and not self.problem

    @property
    def mode_label(self) -> str:
        return MODE_LABELS[self.mode] if self.mode else ""

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok, "mode_label": self.mode_label}


def check_connection(base_url: str | None, model: str, api_key: str | None = None, *,
                     timeout_s: float | None = None, progress: Callable[[str], None] | None = None,
                     probe_cache=None, measure: bool = True) -> ConnectionReport:
    """Test a connection the way memoir will use it: reach the server, ask the model each way
    (tools, JSON schema, JSON mode, plain text) and keep the verdicts, then time a short generation
    and estimate the seconds an entry will take. `timeout_s` is the one memoir will use (None or 0:
    by where the server is); `progress` hears each step in a sentence. Never raises for what the
    server does: the report says it. The probe result is remembered in `probe_cache`, so saving these
    settings needs no second probe."""
    say = progress or (lambda _step: None)
    # No retries: a test says what the server does now, and a diarist waiting on it is not kept
    # waiting through backoffs.
    client = LLMClient(base_url=base_url or None, api_key=api_key or None, model=model, timeout=timeout_s,
                       max_retries=0, probe_cache=probe_cache)
    report = ConnectionReport(address(base_url), model, client.timeout)
    if not client.configured:
        report.problem, report.problem_kind = "no API key and no server URL", "not_configured"
        return report
    say(f"Connecting to {report.address}…")
    start = time.perf_counter()
    try:
        report.models = client.list_models()
    except LLMUnavailable as exc:
        if exc.kind in NOT_REACHED or exc.kind == "key_refused":
            report.reachable = exc.kind == "key_refused"
            report.problem, report.problem_kind = str(exc), exc.kind
            return report
        # No model list here (some servers have none): the chat itself is what counts.
    latency = time.perf_counter() - start
    report.reachable = True
    say(f"Asking {model} how it answers best…")
    try:
        caps = client.probe(force=True, every_mode=True, progress=say)
    except LLMUnavailable as exc:
        report.reachable = exc.kind not in NOT_REACHED
        report.problem, report.problem_kind = str(exc), exc.kind
        return report
    report.mode, report.verdicts = caps.mode, dict(caps.tried)
    if measure:
        say("Checking how it sorts new facts into memories…")
        # What it shows is kept for the endpoint: an entry then skips a step the model cannot do.
        check_sorting(Gate(client, None))
        say("Timing a short answer…")
        try:
            speed = client.measure_speed()
        except LLMError as exc:
            report.speed_problem = str(exc)
            return report
        report.first_token_s, report.tokens_per_s = speed.first_token_s, speed.tokens_per_s
        report.seconds_per_entry = seconds_per_entry(speed, latency, read_ahead=client.nearby,
                                                      sorting=modes.asks(client.echoes("update")))
    return report


def seconds_per_entry(speed: Speed, latency: float, *, read_ahead: bool = False, sorting: bool = True) -> float | None:
    """About how long the model takes to store one short entry's memories, from a measured speed. The prompt
    is read at the speed the measurement's prompt was (its time to the first token less the time a
    model list took); the reply is written at the measured writing speed. `read_ahead`: the server
    has read the extraction's beginning already; `sorting`: the memory-sorting step is asked (not
    for a model that only echoes its example, modes.asks)."""
    if not speed.tokens_per_s:
        return None
    reading = max(speed.first_token_s - latency, 1e-3)
    read_per_s = speed.prompt_tokens / reading

    def cost(call: tuple[int, int]) -> float:
        return latency + call[0] / read_per_s + call[1] / speed.tokens_per_s  # type: ignore[operator]

    calls = [EXTRACTION_READ_AHEAD if read_ahead else EXTRACTION_CALL] + ([SORTING_CALL] if sorting else [])
    return sum(cost(c) for c in calls)


def make_gate(settings, engine, metric_sink, probe_cache):
    """The gate every feature holds (never the client): each request is cleared there (gate.py). The key
    goes only to the endpoint it was saved for (secrets.key_for)."""
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
    """Try unsaved connection settings: the server's models, how it answers best, how fast (see
    `check_connection`; the probe result is remembered, so saving these settings needs no second
    probe). Raises LLMUnavailable with a sentence fit to show."""
    key = api_key if api_key is not None else secrets.key_for(base_url, settings.llm_key_endpoint)
    report = check_connection(base_url, model, key, timeout_s=settings.llm_timeout_s, probe_cache=probe_cache)
    if not report.ok:
        raise LLMUnavailable(report.problem, kind=report.problem_kind, address=report.address)
    return report.to_dict()


def find_local() -> list[dict]:
    """OpenAI-compatible servers already running on this computer (Ollama, llama.cpp, LM Studio, …)."""
    return [{"preset": f.preset.key, "label": f.name, "base_url": f.base_url, "models": list(f.models)}
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
    def needs_key(self) -> bool:
        """The journal's AI settings were taken from another computer and wait for this one's API key
        (keys never travel with the journal)."""
        return shared_settings.needs_key(self._settings(), has_key=self._llm().client.has_key)

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

    def check_connection(self, base_url: str | None, model: str, api_key: str | None = None, *,
                         progress: Callable[[str], None] | None = None,
                         timeout_s: float | None = None) -> ConnectionReport:
        """The connection test step by step, with the configured time limit or `timeout_s` (Settings'
        unsaved one; 0: chosen by where the server is). See `check_connection`."""
        s = self._settings()
        key = api_key if api_key is not None else secrets.key_for(base_url, s.llm_key_endpoint)
        limit = s.llm_timeout_s if timeout_s is None else timeout_s
        return check_connection(base_url, model, key, timeout_s=limit, progress=progress, probe_cache=self.probe_cache)

    @staticmethod
    def find_local() -> list[dict]:
        """OpenAI-compatible servers already running on this computer (Ollama, LM Studio, …)."""
        return find_local()

    def disclosure(self) -> disclosure.Disclosure:
        """What is sent to the LLM endpoint, and when (nothing when no LLM is set)."""
        settings = self._settings()
        return disclosure.describe(settings.llm_base_url, self.configured, settings)
