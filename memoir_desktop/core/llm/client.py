"""OpenAI-compatible client: tool calls first, JSON fallback, retries, usage metrics.

Works against OpenAI and local servers (Ollama, llama.cpp, LM Studio, vLLM) through a base
URL. A reply that cannot be used raises `LLMBadReply` carrying the raw text, so the job
that asked can be left failed and visible instead of silently dropping a fact.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import openai

log = logging.getLogger(__name__)


class LLMError(RuntimeError):
    pass


class LLMUnavailable(LLMError):
    """No LLM configured, or it could not be reached after retries."""


class LLMBadReply(LLMError):
    """The LLM answered, but not with something usable. `raw` keeps what it said."""

    def __init__(self, message: str, raw: str = ""):
        super().__init__(message)
        self.raw = raw


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict
    validate: Callable[[dict], str | None]  # returns an error message or None

    def spec(self) -> dict:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


MetricSink = Callable[[str, float, int, int], None]

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


def parse_json_loose(text: str):
    """Find the JSON value in a reply that may carry <think> blocks, fences or prose."""
    if not text:
        raise ValueError("empty reply")
    text = _THINK.sub("", text).strip()
    candidates = [m.group(1).strip() for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        try:
            return json.loads(cand)
        except ValueError:
            pass
        for opener in "{[":
            start = cand.find(opener)
            while start != -1:
                try:
                    value, _ = json.JSONDecoder().raw_decode(cand[start:])
                    return value
                except ValueError:
                    start = cand.find(opener, start + 1)
    raise ValueError("no JSON value found in reply")


class LLMClient:
    """Thread-safe enough for one writer and one reader: the openai client is shareable."""

    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        model: str,
        timeout: float = 60.0,
        max_retries: int = 3,
        metric_sink: MetricSink | None = None,
        backoff_base: float = 0.5,
    ):
        self.model = model
        self.base_url = base_url or None
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self._sink = metric_sink
        self._tools_supported: bool | None = None
        self._lock = threading.Lock()
        self.configured = bool(api_key or base_url)
        self._client = openai.OpenAI(
            base_url=self.base_url,
            # Local servers ignore the key but the SDK insists on one.
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=0,  # our own loop below honours Retry-After and records attempts
        )

    # -- public -------------------------------------------------------------------------

    def complete(self, stage: str, messages: list[dict], *, temperature: float = 0.2) -> str:
        try:
            resp = self._call(stage, dict(messages=messages, temperature=temperature))
        except openai.BadRequestError as exc:
            raise LLMBadReply(f"{stage}: request refused ({_describe(exc)})") from exc
        text = resp.choices[0].message.content or ""
        return _THINK.sub("", text).strip()

    def call_tool(self, stage: str, messages: list[dict], tool: Tool) -> dict:
        """Force one tool call and return its validated arguments."""
        raw = ""
        if self._tools_supported is not False:
            try:
                resp = self._call(
                    stage,
                    dict(
                        messages=messages,
                        tools=[tool.spec()],
                        tool_choice="required",
                        temperature=0,
                    ),
                )
            except openai.BadRequestError as exc:
                # Servers without tool support answer 400; remember and use JSON instead.
                log.info("tool call refused (%s); falling back to JSON mode", exc.status_code)
                self._tools_supported = False
            else:
                msg = resp.choices[0].message
                calls = msg.tool_calls or []
                for call in calls:
                    if call.function and call.function.name == tool.name:
                        raw = call.function.arguments or ""
                        break
                else:
                    raw = msg.content or ""
                args, err = self._parse(raw, tool)
                if err is None:
                    return args
                log.warning("unusable %s reply (%s); asking again in JSON mode", stage, err)
        return self._call_json(stage, messages, tool, previous=raw)

    def ping(self) -> str:
        """Check reachability cheaply; returns the model list's first id or raises."""
        try:
            models = self._client.models.list()
            first = next(iter(models), None)
            return first.id if first else self.model
        except openai.APIError as exc:
            raise LLMUnavailable(_describe(exc)) from exc

    # -- internals ----------------------------------------------------------------------

    def _call_json(self, stage: str, messages: list[dict], tool: Tool, previous: str) -> dict:
        instruction = (
            f"Reply with one JSON object only, no prose, matching this JSON schema for "
            f"`{tool.name}`:\n{json.dumps(tool.parameters, ensure_ascii=False)}"
        )
        msgs = list(messages) + [{"role": "user", "content": instruction}]
        kwargs = dict(messages=msgs, temperature=0, response_format={"type": "json_object"})
        try:
            resp = self._call(stage, kwargs)
        except openai.BadRequestError:
            kwargs.pop("response_format")
            resp = self._call(stage, kwargs)
        raw = resp.choices[0].message.content or ""
        args, err = self._parse(raw, tool)
        if err is not None:
            raise LLMBadReply(f"{stage}: {err}", raw=raw or previous)
        return args

    @staticmethod
    def _parse(raw: str, tool: Tool) -> tuple[dict | None, str | None]:
        try:
            value = parse_json_loose(raw)
        except ValueError as exc:
            return None, str(exc)
        # Some models wrap arguments as {"name": ..., "arguments": {...}}.
        if isinstance(value, dict) and "arguments" in value and isinstance(value["arguments"], dict):
            value = value["arguments"]
        if not isinstance(value, dict):
            return None, "reply is not a JSON object"
        err = tool.validate(value)
        return (value, None) if err is None else (None, err)

    def _call(self, stage: str, kwargs: dict):
        if not self.configured:
            raise LLMUnavailable("no LLM is configured (set an API key or a local server URL)")
        attempt = 0
        while True:
            start = time.perf_counter()
            try:
                resp = self._client.chat.completions.create(model=self.model, **kwargs)
            except openai.BadRequestError:
                raise
            except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError,
                    openai.InternalServerError, openai.APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                retryable = status is None or status == 429 or status >= 500
                if not retryable:
                    raise LLMUnavailable(_describe(exc)) from exc
                if attempt >= self.max_retries:
                    raise LLMUnavailable(_describe(exc)) from exc
                delay = _retry_after(exc) or self.backoff_base * (2**attempt)
                attempt += 1
                log.info("LLM %s failed (%s), retry %d in %.1fs", stage, _describe(exc), attempt, delay)
                time.sleep(min(delay, 30.0))
                continue
            ms = (time.perf_counter() - start) * 1000
            if not getattr(resp, "choices", None):
                raise LLMBadReply(f"{stage}: reply without choices", raw=str(resp)[:2000])
            usage = getattr(resp, "usage", None)
            if self._sink:
                self._sink(
                    stage,
                    ms,
                    getattr(usage, "prompt_tokens", 0) or 0,
                    getattr(usage, "completion_tokens", 0) or 0,
                )
            return resp


def _retry_after(exc) -> float | None:
    resp = getattr(exc, "response", None)
    if resp is None:
        return None
    value = resp.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    name = exc.__class__.__name__
    return f"{name} (HTTP {status})" if status else name
