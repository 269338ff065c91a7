"""OpenAI-compatible client: each server asked the way it answers best, replies read tolerantly.

Works against OpenAI and local servers (Ollama, llama.cpp, LM Studio, vLLM, Jan) through a base
URL. A structured call (`call_tool`) uses the mode the probe found for this endpoint (probe.py,
modes.py); its reply goes through the tolerant reader and the typed arguments of the tool. An
unusable reply is asked once more, in the next mode down, with what was wrong; if that fails too
it raises `LLMBadReply` carrying the raw text, so the job that asked is left failed and visible
instead of silently dropping a fact.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ValidationError

from memoir_desktop.core.llm import modes
from memoir_desktop.core.llm.errors import (
    LLMBadReply,
    LLMError,
    LLMPromptTooLong,
    LLMUnavailable,
    classify_400,
    describe,
    error_text,
)
from memoir_desktop.core.llm.gate import Clearance
from memoir_desktop.core.llm.probe import (
    FAILURES_BEFORE_REPROBE,
    PROBE_MESSAGES,
    PROBE_SCHEMA,
    PROBE_TOOL,
    Capabilities,
    ProbeCache,
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


class LLMClient:
    """Thread-safe for one writer and several readers: the openai client is shareable."""

    def __init__(self, *, base_url: str | None, api_key: str | None, model: str, timeout: float = 60.0,
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
        self._failures = 0  # unusable replies in a row in the current mode
        self.configured = bool(api_key or base_url)
        self._api_key = api_key or "not-needed"  # local servers ignore the key but the SDK insists on one
        self._timeout = timeout
        self._sdk_client = None
        self._sdk_lock = threading.Lock()  # not _lock: probe() holds that while it asks

    @property
    def _client(self):
        # Made on first use: importing the openai SDK takes most of a second, and opening a journal,
        # searching it or serving it to another app (a fresh process each time) asks no model.
        if self._sdk_client is None:
            with self._sdk_lock:
                if self._sdk_client is None:
                    self._sdk_client = _sdk().OpenAI(
                        base_url=self.base_url, api_key=self._api_key, timeout=self._timeout,
                        # Not the SDK's retries: the loop below logs each retry with its purpose (never
                        # text), caps a server's Retry-After at 30 s so a job never sleeps minutes, and
                        # lets tests shorten the backoff.
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
        except _sdk().BadRequestError as exc:
            kind = classify_400(exc, asked_tools=False, asked_format=False)
            cls = LLMPromptTooLong if kind == "too_long" else LLMBadReply
            raise cls(f"{stage}: request refused ({describe(exc)}: {error_text(exc)[:200]})") from exc
        return strip_thinking(clean_text(resp.choices[0].message.content or "")).strip()

    def call_tool(self, stage: str, messages: list[dict], tool: Tool, *, clearance: Clearance) -> BaseModel:
        """One structured call; returns the tool's typed arguments (`.truncated` says whether the
        reply was cut off and only its complete items were kept). Only the gate calls this."""
        _cleared(stage, clearance, messages)
        mode = self._mode()
        problems: list[str] = []
        raws: list[str] = []
        msgs = messages
        while True:
            try:
                raw, finish = self._structured(stage, mode, msgs, tool)
            except _Downgrade as down:  # each downgrade moves one mode down: this loop ends
                problems.append(f"{mode}: {down}")
                mode = down.mode
                continue
            raws.append(raw)
            try:
                args, truncated = tool.read(raw, finish)
            except Unreadable as exc:
                problems.append(f"{mode}: {exc}")
                log.warning("unusable %s reply in %s mode (%s)", stage, mode, exc)
                self._note_failure(mode)
                if len(raws) >= 2:
                    break
                # Ask once more, one mode down, saying what was wrong (a model that drifts out of
                # its tool call often answers a plain JSON request well).
                mode = modes.next_mode(mode) or mode
                msgs = [*messages, {"role": "user", "content":
                                    f"Your previous reply could not be used ({exc}). Answer again."}]
                continue
            self._failures = 0
            if truncated:
                log.warning("%s reply was truncated; its complete items were kept", stage)
                args.truncated = True  # type: ignore[attr-defined]  # every args model has it (llm/args.py)
            return args
        raise LLMBadReply(f"{stage}: {'; '.join(problems)}", raw="\n---\n".join(raws))

    def probe(self, force: bool = False) -> Capabilities:
        """Find (or recall) the best mode for this endpoint. Raises LLMUnavailable when the server
        cannot be reached, so nothing is cached from a server that was down."""
        self._require_configured()  # before the except clauses below import the SDK to match against
        with self._lock:
            caps = None if force else self.cache.get(self.key)
            if caps is not None:
                return caps
            tried: dict[str, str] = {}
            chosen = "text"
            for mode in modes.MODES[:-1]:
                verdict = self._probe_mode(mode)
                tried[mode] = verdict
                if verdict == "ok" or verdict.startswith("inconclusive"):
                    chosen = mode
                    break
            tried.setdefault("text", "ok" if chosen == "text" else "not needed")
            caps = Capabilities(chosen, now_iso(), tried)
            if not tried[chosen].startswith("inconclusive"):
                self.cache.put(self.key, caps)  # an inconclusive answer is asked again next time
            self._failures = 0
            log.info("LLM endpoint answers best in %s mode", chosen)
            return caps

    def list_models(self) -> list[str]:
        """Model ids the server offers (GET /models); raises LLMUnavailable."""
        try:
            return [m.id for m in self._client.models.list()]
        except (_sdk().APIError, _sdk().APIConnectionError) as exc:
            raise LLMUnavailable(describe(exc)) from exc

    def ping(self) -> str:
        """Check reachability cheaply; returns the model list's first id or raises."""
        ids = self.list_models()
        return ids[0] if ids else self.model

    # -- internals ----------------------------------------------------------------------

    def _mode(self) -> str:
        caps = self.cache.get(self.key)
        return caps.mode if caps is not None else self.probe().mode

    def _note_failure(self, mode: str) -> None:
        self._failures += 1
        if self._failures >= FAILURES_BEFORE_REPROBE:
            log.info("the %s mode keeps failing; the endpoint will be probed again", mode)
            self.cache.forget(self.key)
            self._failures = 0

    def _set_mode(self, mode: str, why: str) -> None:
        caps = self.cache.get(self.key) or Capabilities(mode, now_iso())
        old = caps.mode
        caps.tried[old] = why
        caps.mode = mode
        self.cache.put(self.key, caps)

    def _structured(self, stage: str, mode: str, messages: list[dict], tool: Tool) -> tuple[str, str | None]:
        kwargs = modes.request(mode, messages, tool.name, tool.description, tool.parameters)
        try:
            resp = self._call(stage, kwargs)
        except _sdk().BadRequestError as exc:
            kind = classify_400(exc, asked_tools=mode == "tools", asked_format=mode in ("json_schema", "json_object"))
            if kind == "too_long":
                raise LLMPromptTooLong(f"{stage}: the prompt is longer than the model's context window "
                                       f"({error_text(exc)[:200]})") from exc
            down = modes.next_mode(mode)
            if kind in ("no_tools", "no_format") and down:
                log.info("%s mode refused (%s); using %s from now on", mode, describe(exc), down)
                self._set_mode(down, f"refused: {error_text(exc)[:120]}")
                raise _Downgrade(down, f"refused ({describe(exc)})") from exc
            raise LLMBadReply(f"{stage}: request refused ({describe(exc)}: {error_text(exc)[:200]})") from exc
        choice = resp.choices[0]
        return modes.raw_arguments(mode, choice.message, tool.name), getattr(choice, "finish_reason", None)

    def _require_configured(self) -> None:
        if not self.configured:
            raise LLMUnavailable("no LLM is configured (set an API key or a local server URL)")

    def _probe_mode(self, mode: str) -> str:
        kwargs = modes.request(mode, PROBE_MESSAGES, PROBE_TOOL, "Echo a word.", PROBE_SCHEMA)
        kwargs["max_tokens"] = 200
        try:
            resp = self._call("probe", kwargs)
        except _sdk().BadRequestError as exc:
            if classify_400(exc, asked_tools=mode == "tools", asked_format=mode != "tools") == "too_long":
                return f"inconclusive: {error_text(exc)[:120]}"  # says nothing about the mode
            return f"refused: {error_text(exc)[:120]}"
        except LLMBadReply as exc:
            return f"unusable: {exc}"
        raw = modes.raw_arguments(mode, resp.choices[0].message, PROBE_TOOL)
        try:
            value = read_reply(raw, PROBE_SCHEMA).value
        except Unreadable as exc:
            return f"unusable: {exc}"
        return "ok" if isinstance(value.get("word"), str) else "unusable: no word"

    def _call(self, stage: str, kwargs: dict):
        try:
            purpose(stage)
        except UnregisteredPurpose:
            log.error("refused a request under the unregistered purpose %r", stage)
            raise
        self._require_configured()
        attempt = 0
        while True:
            start = time.perf_counter()
            try:
                # The purpose's name (never text) travels with the request, for the user's own proxy or log.
                resp = self._client.chat.completions.create(model=self.model, **kwargs,
                                                            extra_headers={PURPOSE_HEADER: stage})
            except _sdk().BadRequestError:
                raise
            except (_sdk().APITimeoutError, _sdk().APIConnectionError, _sdk().RateLimitError,
                    _sdk().InternalServerError, _sdk().APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                retryable = status is None or status == 429 or status >= 500
                if not retryable or attempt >= self.max_retries:
                    raise LLMUnavailable(_unavailable_message(exc)) from exc
                delay = _retry_after(exc) or self.backoff_base * (2**attempt)
                attempt += 1
                log.info("LLM %s failed (%s), retry %d in %.1fs", stage, describe(exc), attempt, delay)
                time.sleep(min(delay, 30.0))
                continue
            except (ValueError, UnicodeError) as exc:  # a body that is not JSON at all
                raise LLMBadReply(f"{stage}: the server's reply could not be decoded ({exc.__class__.__name__})") \
                    from exc
            ms = (time.perf_counter() - start) * 1000
            if not getattr(resp, "choices", None):
                raise LLMBadReply(f"{stage}: reply without choices", raw=clean_text(str(resp))[:2000])
            usage = getattr(resp, "usage", None)
            if self._sink:
                self._sink(stage, ms, getattr(usage, "prompt_tokens", 0) or 0,
                           getattr(usage, "completion_tokens", 0) or 0)
            return resp


def _cleared(stage: str, clearance: Clearance, messages: list[dict]) -> None:
    if not isinstance(clearance, Clearance) or clearance.purpose.name != stage:
        raise UnregisteredPurpose(f"a {stage!r} request without the gate's clearance")
    clearance.check(messages)


class _Downgrade(Exception):
    def __init__(self, mode: str, why: str):
        super().__init__(why)
        self.mode = mode


def _unavailable_message(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    if status in (401, 403):
        return f"the server refused the API key ({describe(exc)})"
    if status == 404:
        return f"the server does not know this model or address ({describe(exc)})"
    return describe(exc)


def _retry_after(exc) -> float | None:
    resp = getattr(exc, "response", None)
    if resp is None:
        return None
    value = resp.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
