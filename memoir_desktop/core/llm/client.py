"""OpenAI-compatible client: each server asked the way it answers best, replies read tolerantly.

Works against OpenAI and local servers (Ollama, llama.cpp, LM Studio, vLLM, Jan) through a base
URL. A structured call (`call_tool`) uses the mode the probe found for this endpoint (probe.py,
modes.py); its reply goes through the tolerant reader and the typed arguments of the tool.

A server that refuses a way of asking (errors.refusal: tools, a response_format, a parameter, in
whatever status code it uses) is asked the next way; only a server that cannot be reached is
unavailable. An unusable reply is asked once more, in the next mode down, with what was wrong; if
that fails too it raises `LLMBadReply` carrying the raw text, so the job that asked is left failed and
visible instead of silently dropping a fact. Neither demotes the mode that was answering: a server
that answers is kept as it was found.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ValidationError

from memoir_desktop.core.llm import modes, servers
from memoir_desktop.core.llm.errors import (
    LLMBadReply,
    LLMError,
    LLMPromptTooLong,
    LLMUnavailable,
    address,
    error_text,
    explain,
    refusal,
    too_long,
)
from memoir_desktop.core.llm.gate import Clearance
from memoir_desktop.core.llm.probe import (
    PROBE_MESSAGES,
    PROBE_SCHEMA,
    PROBE_TOOL,
    SPEED_MESSAGES,
    SPEED_TOKENS,
    Capabilities,
    ProbeCache,
    Speed,
    endpoint_key,
    now_iso,
)
from memoir_desktop.core.llm.purposes import UnregisteredPurpose, purpose
from memoir_desktop.core.llm.reader import Unreadable, clean_text, read_reply, strip_thinking

log = logging.getLogger(__name__)


def _sdk():
    import openai  # on first use: see LLMClient._client

    return openai

PURPOSE_HEADER = "X-Memoir-Purpose"
# Connecting is quick even when generating is slow: a server that does not accept the connection in
# this time is not there (a LAN address with nothing behind it would otherwise hold a test for minutes).
CONNECT_TIMEOUT_S = 10.0
ATTEMPTS = 2  # replies read per structured call: the first, and one more after an unusable one

__all__ = ["LLMBadReply", "LLMClient", "LLMError", "LLMPromptTooLong", "LLMUnavailable", "Tool"]


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict  # the JSON schema the model is shown
    args: type[BaseModel]  # the typed arguments the reply is read into

    def read(self, raw: str, finish_reason: str | None = None) -> tuple[BaseModel, bool]:
        """(arguments, truncated); raises Unreadable."""
        reading = read_reply(raw, self.parameters, finish_reason=finish_reason)
        lists = [v for v in reading.value.values() if isinstance(v, list)]
        if reading.truncated and lists and not any(lists):
            # Cut off before its first complete item: not "the model found nothing".
            raise Unreadable("the reply was cut off before its first complete item")
        try:
            return self.args.model_validate(reading.value), reading.truncated
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            raise Unreadable(f"{where or 'reply'}: {first.get('msg', 'invalid')}") from exc


MetricSink = Callable[[str, float, int, int], None]
Progress = Callable[[str], None]


class LLMClient:
    """Thread-safe for one writer and several readers: the openai client is shareable."""

    def __init__(self, *, base_url: str | None, api_key: str | None, model: str, timeout: float | None = None,
                 max_retries: int = 3, metric_sink: MetricSink | None = None, backoff_base: float = 0.5,
                 probe_cache: ProbeCache | None = None):
        self.model = model
        self.base_url = base_url or None
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self._sink = metric_sink
        self.cache = probe_cache or ProbeCache(None)
        self.key = endpoint_key(self.base_url, model)
        self._lock = threading.Lock()
        self.configured = bool(api_key or base_url)
        self.has_key = bool(api_key)
        self._api_key = api_key or "not-needed"  # local servers ignore the key but the SDK insists on one
        # None or 0: chosen by where the server is (servers.default_timeout).
        self.timeout = float(timeout) if timeout and timeout > 0 else servers.default_timeout(self.base_url)
        # A server near the diarist answers one request at a time: one sent again after a timeout
        # waits behind the first, which is still being generated, and both are lost.
        self.nearby = servers.is_nearby(self.base_url)
        self.address = address(self.base_url)
        self._refused: set[str] = set()  # parameters this server refused (errors.PARAMETERS)
        self._sdk_client = None
        self._sdk_lock = threading.Lock()  # not _lock: probe() holds that while it asks

    @property
    def _client(self):
        # Made on first use: importing the openai SDK takes most of a second, and opening a journal,
        # searching it or serving it to another app (a fresh process each time) asks no model.
        if self._sdk_client is None:
            with self._sdk_lock:
                if self._sdk_client is None:
                    sdk = _sdk()
                    self._sdk_client = sdk.OpenAI(
                        base_url=self.base_url, api_key=self._api_key,
                        # The SDK's own Timeout: its HTTP library is not always the httpx memoir imports.
                        timeout=sdk.Timeout(self.timeout, connect=min(CONNECT_TIMEOUT_S, self.timeout)),
                        # Not the SDK's retries: the loop below logs each retry with its purpose (never
                        # text), caps a server's Retry-After at 30 s so a job never sleeps minutes, never
                        # sends again what a nearby server is still generating, and lets tests shorten
                        # the backoff.
                        max_retries=0)
        return self._sdk_client

    # -- public -------------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities | None:
        """What the probe found for this endpoint, None before the first probe."""
        return self.cache.get(self.key)

    def complete(self, stage: str, messages: list[dict], *, clearance: Clearance, temperature: float = 0.2) -> str:
        """A plain-text reply. Only the gate (gate.py) calls this: `clearance` is its answer."""
        _cleared(stage, clearance, messages)
        try:
            resp = self._call(stage, dict(messages=messages, temperature=temperature))
        except _Refused as refused:
            raise self._refused_error(stage, refused) from refused.exc
        return strip_thinking(clean_text(resp.choices[0].message.content or "")).strip()

    def call_tool(self, stage: str, messages: list[dict], tool: Tool, *, clearance: Clearance,
                  max_tokens: int | None = None) -> BaseModel:
        """One structured call; returns the tool's typed arguments (`.truncated` says whether the
        reply was cut off and only its complete items were kept). Only the gate calls this."""
        _cleared(stage, clearance, messages)
        mode = self._mode()
        remembered = mode  # the mode this endpoint answers in; a retry one mode down does not change it
        problems: list[str] = []
        raws: list[str] = []
        msgs = messages
        while True:
            try:
                raw, finish = self._structured(stage, mode, msgs, tool, remember=mode == remembered,
                                               max_tokens=max_tokens)
            except _Downgrade as down:  # each downgrade moves one mode down: this loop ends
                problems.append(f"{mode}: {down}")
                remembered = down.mode if mode == remembered else remembered
                mode = down.mode
                continue
            raws.append(raw)
            try:
                args, truncated = tool.read(raw, finish)
            except Unreadable as exc:
                problems.append(f"{mode}: {exc}")
                log.warning("unusable %s reply in %s mode (%s)", stage, mode, exc)
                if len(raws) >= ATTEMPTS:
                    break
                # Ask once more, one mode down, saying what was wrong (a model that drifts out of
                # its tool call often answers a plain JSON request well).
                mode = modes.next_mode(mode) or mode
                msgs = [*messages, {"role": "user", "content":
                                    f"Your previous reply could not be used ({exc}). Answer again."}]
                continue
            if truncated:
                log.warning("%s reply was truncated; its complete items were kept", stage)
                args.truncated = True  # type: ignore[attr-defined]  # every args model has it (llm/args.py)
            self._count_echo(stage, mode, raw, tool)
            return args
        raise LLMBadReply(f"The model at {self.address} answered the {stage} request, but not in a form memoir "
                          f"could use ({'; '.join(problems)}). Its reply is kept with the job, which can be "
                          "tried again.", raw="\n---\n".join(raws), address=self.address)

    def prefill(self, stage: str, messages: list[dict], tool: Tool, *, clearance: Clearance) -> bool:
        """Have a server near the diarist read the beginning of a request to come (a reply of one
        token, not read): it keeps the last prompt it read, so the request, when it comes, is read
        from where this one ends. In the mode the endpoint answers in, which may shape the prompt
        (tools are part of it). Only once the mode is known: a probe here would be a surprise
        request. False when it was not sent or the server did not answer; nothing else changes."""
        _cleared(stage, clearance, messages)
        if not self.nearby:
            return False
        return self._once(stage, messages, tool, cap=1) is not None

    def echoes_example(self, messages: list[dict], tool: Tool, *, clearance: Clearance) -> bool | None:
        """Whether the model sends the instruction's example shape back for this request (made up, with no
        journal text: a probe) instead of filling it in; None when it was not asked (no mode known yet, or a
        tool call, which shows no shape) or did not answer."""
        _cleared("probe", clearance, messages)
        caps = self.cache.get(self.key)
        if caps is None or caps.mode == "tools":
            return None
        resp = self._once("probe", messages, tool)
        if resp is None:
            return None
        return _is_echo(modes.raw_arguments(caps.mode, resp.choices[0].message, tool.name), tool)

    def _once(self, stage: str, messages: list[dict], tool: Tool, *, cap: int | None = None):
        """One structured request in the endpoint's known mode, outside any job: the reply, or None when
        the mode is not known yet or the server did not answer (it is logged; nothing else changes)."""
        caps = self.cache.get(self.key)
        if caps is None:
            return None
        try:
            return self._call(stage, modes.request(caps.mode, messages, tool.name, tool.description, tool.parameters),
                              cap=cap)
        except (LLMError, _Refused) as exc:
            log.info("%s: not answered (%s)", stage, exc.__class__.__name__)
            return None

    def probe(self, force: bool = False, *, every_mode: bool = False, progress: Progress | None = None) -> Capabilities:
        """Find (or recall) the best mode for this endpoint: the first whose reply carries the value.
        `every_mode` asks every mode (the connection test shows each verdict). A mode the server
        refuses or answers unusably is passed over; raises LLMUnavailable only when the server cannot
        be reached or fails with an error that names no way of asking (a 503 while a model loads says
        nothing about tool calls), so nothing is cached from a server that was down."""
        self._require_configured()  # before the except clauses below import the SDK to match against
        with self._lock:
            caps = None if force else self.cache.get(self.key)
            if caps is not None:
                return caps
            tried: dict[str, str] = {}
            chosen: str | None = None
            for mode in modes.MODES:
                if chosen is not None and not every_mode:
                    break
                if progress is not None:
                    progress(f"Asking in {modes.MODE_LABELS[mode]}…")
                tried[mode] = verdict = self._probe_mode(mode)
                if chosen is None and (verdict == "ok" or verdict.startswith("inconclusive")):
                    chosen = mode
            if chosen is None:
                chosen = "text"  # no mode carried the value: the tolerant reader is the last resort
            caps = Capabilities(chosen, now_iso(), tried)
            old = self.cache.get(self.key)
            if old is not None and old.mode == chosen:
                caps.echoes = dict(old.echoes)  # asked again (Test connection), the model is the same
            if not tried[chosen].startswith("inconclusive"):
                self.cache.put(self.key, caps)  # an inconclusive answer is asked again next time
            log.info("LLM endpoint answers best in %s mode", chosen)
            return caps

    def measure_speed(self) -> Speed:
        """How fast the model writes: one short generation (no journal text), streamed so the time to
        the first token (connecting, queueing, reading the prompt) is told from the writing after it."""
        kwargs = {"messages": SPEED_MESSAGES, "temperature": 0, "max_tokens": SPEED_TOKENS}
        prompt_tokens = sum(len(m["content"]) for m in SPEED_MESSAGES) // 4
        start = time.perf_counter()
        first = last = 0.0
        pieces = 0
        try:
            for chunk in self._call("probe", {**kwargs, "stream": True}):
                choices = getattr(chunk, "choices", None) or []
                if choices and getattr(choices[0].delta, "content", None):
                    last = time.perf_counter()
                    first = first or last
                    pieces += 1
        except _Refused:
            pieces = 0
        except (ValueError, AttributeError, _sdk().APIError):  # a server that does not stream
            pieces = 0
        if pieces >= 2 and last > first:
            return Speed(first - start, (pieces - 1) / (last - first), prompt_tokens, pieces)
        # Not streamed: one reply, the reading of the prompt and the writing together.
        start = time.perf_counter()
        resp = self._call("probe", kwargs)
        took = time.perf_counter() - start
        written = getattr(getattr(resp, "usage", None), "completion_tokens", 0) or 0
        return Speed(took, written / took if written and took > 0 else None, prompt_tokens, written)

    def list_models(self) -> list[str]:
        """Model ids the server offers (GET /models); raises LLMUnavailable."""
        try:
            return [m.id for m in self._client.models.list()]
        except (_sdk().APIError, _sdk().APIConnectionError) as exc:
            raise self._unavailable(exc) from exc

    def ping(self) -> str:
        """Check reachability cheaply; returns the model list's first id or raises."""
        ids = self.list_models()
        return ids[0] if ids else self.model

    def echoes(self, stage: str) -> int:
        """`stage`'s steps in a row whose reply was the instruction's own example shape, with the
        steps not asked because of that (not_asked)."""
        caps = self.cache.get(self.key)
        return caps.echoes.get(stage, 0) if caps is not None else 0

    def not_asked(self, stage: str) -> None:
        """A `stage` step answered without the model, because it echoes the example."""
        self.set_echoes(stage, self.echoes(stage) + 1)

    # -- internals ----------------------------------------------------------------------

    def _count_echo(self, stage: str, mode: str, raw: str, tool: Tool) -> None:
        # Shown a shape to fill in (JSON and text modes), a model too small to follow the task sends
        # the shape back as it is: Qwen2.5 0.5B did for every memory-sorting step (real-llm-qwen.txt).
        echoed = mode != "tools" and _is_echo(raw, tool)
        if echoed or self.echoes(stage):
            self.set_echoes(stage, self.echoes(stage) + 1 if echoed else 0)

    def set_echoes(self, stage: str, n: int) -> None:
        caps = self.cache.get(self.key)
        if caps is None:
            return
        caps.echoes[stage] = n
        self.cache.put(self.key, caps)

    def _mode(self) -> str:
        caps = self.cache.get(self.key)
        return caps.mode if caps is not None else self.probe().mode

    def _set_mode(self, mode: str, why: str) -> None:
        caps = self.cache.get(self.key) or Capabilities(mode, now_iso())
        old = caps.mode
        caps.tried[old] = why
        caps.mode = mode
        self.cache.put(self.key, caps)

    def _structured(self, stage: str, mode: str, messages: list[dict], tool: Tool, *,
                    remember: bool = True, max_tokens: int | None = None) -> tuple[str, str | None]:
        kwargs = modes.request(mode, messages, tool.name, tool.description, tool.parameters)
        try:
            resp = self._call(stage, kwargs, cap=max_tokens)
        except _Refused as refused:
            down = modes.next_mode(mode)
            if refused.why in ("no_tools", "no_format") and down:
                why = error_text(refused.exc)
                if remember:
                    log.info("%s mode refused (%s); using %s from now on", mode, refused.why, down)
                    self._set_mode(down, f"refused: {_short(why)}")
                raise _Downgrade(down, f"refused ({_short(why)})") from refused.exc
            raise self._refused_error(stage, refused) from refused.exc
        choice = resp.choices[0]
        return modes.raw_arguments(mode, choice.message, tool.name), getattr(choice, "finish_reason", None)

    def _require_configured(self) -> None:
        if not self.configured:
            raise LLMUnavailable("no LLM is configured (set an API key or a local server URL)", kind="not_configured")

    def _probe_mode(self, mode: str) -> str:
        kwargs = modes.request(mode, PROBE_MESSAGES, PROBE_TOOL, "Echo a word.", PROBE_SCHEMA)
        try:
            resp = self._call("probe", kwargs)
        except _Refused as refused:
            if refused.why == "too_long":
                return f"inconclusive: {_short(error_text(refused.exc))}"  # says nothing about the mode
            return f"refused: {_short(error_text(refused.exc))}"
        except LLMBadReply as exc:
            return f"unusable: {exc}"
        raw = modes.raw_arguments(mode, resp.choices[0].message, PROBE_TOOL)
        try:
            value = read_reply(raw, PROBE_SCHEMA).value
        except Unreadable as exc:
            return f"unusable: {exc}"
        return "ok" if isinstance(value.get("word"), str) else "unusable: no word"

    def _refused_error(self, stage: str, refused: _Refused) -> LLMBadReply:
        if refused.why == "too_long":  # whatever the status it came with
            return LLMPromptTooLong(f"{stage}: {too_long(self.address, error_text(refused.exc)).text}",
                                    kind="too_long", address=self.address)
        said = explain(refused.exc, base_url=self.base_url, model=self.model, timeout_s=self.timeout)
        return LLMBadReply(f"{stage}: {said.text}", kind="refused", address=self.address)

    def _unavailable(self, exc: BaseException, *, resent: bool = True) -> LLMUnavailable:
        said = explain(exc, base_url=self.base_url, model=self.model, timeout_s=self.timeout, resent=resent)
        if said.kind == "disconnected" and not servers.is_listening(self.base_url):
            # It closed the connection and nothing listens there now: it stopped or crashed.
            said = explain(ConnectionRefusedError(), base_url=self.base_url, model=self.model)
        return LLMUnavailable(said.text, kind=said.kind, address=self.address)

    def _request(self, stage: str, kwargs: dict, *, uncapped: bool = False, cap: int | None = None) -> dict:
        """The request as this server takes it: the purpose's reply cap (or the caller's smaller `cap`),
        less what the server refused."""
        out = dict(kwargs)
        if "max_tokens" not in out and not uncapped:
            out["max_tokens"] = min(cap, purpose(stage).max_tokens) if cap else purpose(stage).max_tokens
        for name in self._refused:
            out.pop(name, None)
        return out

    def _call(self, stage: str, kwargs: dict, *, cap: int | None = None):
        try:
            purpose(stage)
        except UnregisteredPurpose:
            log.error("refused a request under the unregistered purpose %r", stage)
            raise
        self._require_configured()
        attempt = 0
        uncapped = False
        while True:
            request = self._request(stage, kwargs, uncapped=uncapped, cap=cap)
            start = time.perf_counter()
            try:
                # The purpose's name (never text) travels with the request, for the user's own proxy or log.
                resp = self._client.chat.completions.create(model=self.model, **request,
                                                            extra_headers={PURPOSE_HEADER: stage})
            except _sdk().APIStatusError as exc:
                why = refusal(exc, request)
                if why in ("no_max_tokens", "no_temperature"):
                    # Such servers (OpenAI's reasoning models) count their thinking in the cap: without
                    # one they finish; and they take only their own temperature. The cap is for servers
                    # near the diarist, which take it.
                    name = why[3:]
                    log.info("the server refused %s; asking without it", name)
                    self._refused.add(name)
                    continue
                if why == "too_long" and "max_tokens" in request and "max_tokens" not in kwargs and not uncapped:
                    # vLLM counts the reply's cap against the context: the prompt may fit without it.
                    uncapped = True
                    continue
                if why is not None:
                    raise _Refused(exc, why) from exc
                status = exc.status_code
                if not (status in (408, 429) or status >= 500) or attempt >= self.max_retries:
                    raise self._unavailable(exc) from exc
                delay = _retry_after(exc) or self.backoff_base * (2**attempt)
                failed = f"HTTP {status}"
            except _sdk().APITimeoutError as exc:
                if self.nearby or attempt >= self.max_retries:
                    raise self._unavailable(exc, resent=not self.nearby) from exc
                delay, failed = self.backoff_base * (2**attempt), "timeout"
            except _sdk().APIConnectionError as exc:
                if attempt >= self.max_retries:
                    raise self._unavailable(exc) from exc
                delay, failed = self.backoff_base * (2**attempt), "no connection"
            except (ValueError, UnicodeError) as exc:  # a body that is not JSON at all
                raise LLMBadReply(f"{stage}: {explain(exc, base_url=self.base_url).text}", kind="bad_reply",
                                  address=self.address) from exc
            else:
                if request.get("stream"):
                    return resp
                ms = (time.perf_counter() - start) * 1000
                if not getattr(resp, "choices", None):
                    raise LLMBadReply(f"{stage}: the server at {self.address} sent a reply without choices",
                                      raw=clean_text(str(resp))[:2000], address=self.address)
                usage = getattr(resp, "usage", None)
                if self._sink:
                    self._sink(stage, ms, getattr(usage, "prompt_tokens", 0) or 0,
                               getattr(usage, "completion_tokens", 0) or 0)
                return resp
            attempt += 1
            log.info("LLM %s failed (%s), retry %d in %.1fs", stage, failed, attempt, delay)
            time.sleep(min(delay, 30.0))


def _cleared(stage: str, clearance: Clearance, messages: list[dict]) -> None:
    if not isinstance(clearance, Clearance) or clearance.purpose.name != stage:
        raise UnregisteredPurpose(f"a {stage!r} request without the gate's clearance")
    clearance.check(messages)


def _is_echo(raw: str, tool: Tool) -> bool:
    """The reply is the shape the instruction showed (modes.example), sent back as it is."""
    try:
        return json.loads(raw) == modes.example(tool.parameters)
    except ValueError:
        return False


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Downgrade(Exception):
    def __init__(self, mode: str, why: str):
        super().__init__(why)
        self.mode = mode


class _Refused(Exception):
    """The server answered that it will not serve this request as asked (errors.refusal says why)."""

    def __init__(self, exc: Exception, why: str):
        super().__init__(why)
        self.exc, self.why = exc, why


def _retry_after(exc) -> float | None:
    resp = getattr(exc, "response", None)
    if resp is None:
        return None
    value = resp.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
