"""What can go wrong with an LLM call: a refusal told from an outage, and each said in a sentence.

A server that answers is up, whatever it answers. An HTTP error whose body says that a way of asking
(tool calls, a response_format, a parameter) is not supported is a *refusal*: ask the next way and
keep the server. The status code does not tell: llama.cpp's server sends such a refusal as HTTP 500
(a validation error naming response_format; tests/data/llm_servers/llama_cpp.json). "The prompt is
too long" means send less, and must switch nothing off. Only a server that cannot be reached (the
connection refused, the name unknown, no answer in time) is *unavailable*. Servers word all of this
differently (OpenAI, vLLM, llama.cpp, Ollama, LM Studio), so the text is read loosely.

`explain` turns any of these into what a diarist can act on: which server (host:port), the likely
cause, and what to do. Messages of LLMUnavailable and LLMBadReply in core/llm are built with it;
`kind` carries the cause in one word for screens that say it in their own language.
"""

from __future__ import annotations

import re
import socket
from typing import NamedTuple
from urllib.parse import urlparse

SETTINGS_PLACE = "Settings → AI companion"


class LLMError(RuntimeError):
    """`kind`: the cause in one word (see `explain`); `address`: the server's host:port."""

    def __init__(self, message: str = "", *, kind: str = "", address: str = ""):
        super().__init__(message)
        self.kind = kind
        self.address = address


class LLMUnavailable(LLMError):
    """No LLM configured, or it could not be reached after retries. The work waits."""


class LLMBadReply(LLMError):
    """The LLM answered, but not with something usable. `raw` keeps what it said."""

    def __init__(self, message: str, raw: str = "", *, kind: str = "bad_reply", address: str = ""):
        super().__init__(message, kind=kind, address=address)
        self.raw = raw


class LLMPromptTooLong(LLMBadReply):
    """The server refused the prompt as longer than its context window."""


_TOO_LONG = re.compile(
    r"context[_ ]length|context window|maximum context|too many tokens|prompt is too long|too long|"
    r"exceeds? (?:the )?(?:maximum|max|context|available)|n_ctx|num_ctx|reduce the length|token limit|"
    r"input length|max_model_len|maximum length", re.I)
_NO_TOOLS = re.compile(
    r"\btools?\b|tool_choice|function[_ ]call|\bfunctions?\b", re.I)
_NO_FORMAT = re.compile(r"response_format|json_schema|json_object|structured output|grammar|guided", re.I)
# Words with which a server says it cannot serve what was asked (as opposed to failing at it). A 400
# needs none of them; any other status needs one, so a 500 from a crash is not taken for a refusal.
_REFUSING = re.compile(
    r"not supported|unsupported|(?:does ?n[o']?t|cannot|can't) (?:support|handle|use)|not available|not allowed|"
    r"not implemented|input should be|validation error|literal_error|extra_forbidden|not permitted|"
    r"unknown (?:field|parameter|argument|option)|unrecognized|unexpected (?:field|keyword|argument)|invalid|"
    r"must be|expected", re.I)
# Parameters memoir can send another way or leave out when a server refuses them.
PARAMETERS = ("max_tokens", "temperature")
# Statuses that are about the key, the model or the load, never about a way of asking.
_NOT_REFUSALS = (401, 403, 404, 408, 409, 429)


def error_text(exc: BaseException) -> str:
    """The server's message, wherever the SDK put it."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return f"{err.get('code') or ''} {err.get('type') or ''} {err['message']}".strip()
        if isinstance(err, str):
            return err
    return str(getattr(exc, "message", None) or exc)


def refusal(exc: BaseException, request: dict) -> str | None:
    """Why a server that answered refused `request` (the keyword arguments it was sent):
    'too_long' | 'no_tools' | 'no_format' | 'no_max_tokens' | 'no_temperature' | 'bad_request'
    (a 400 that says nothing of the kind), or None when the error is not a refusal at all (no
    answer, a key, a model, a rate limit, or a server error that names nothing it was asked)."""
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) or status < 400 or status in _NOT_REFUSALS:
        return None
    text = error_text(exc)
    if _TOO_LONG.search(text) and not _names_parameter(text, request):
        return "too_long"
    if status != 400 and not _REFUSING.search(text):
        return None
    for name in PARAMETERS:
        if name in request and re.search(rf"\b{name}\b", text):
            return f"no_{name}"
    if request.get("tools") and _NO_TOOLS.search(text):
        return "no_tools"
    if request.get("response_format") and _NO_FORMAT.search(text):
        return "no_format"
    return "bad_request" if status == 400 else None


def _names_parameter(text: str, request: dict) -> bool:
    # "max_tokens must be at most the context length" refuses the parameter, not the prompt.
    return any(name in request and re.search(rf"\b{name}\b", text) for name in PARAMETERS)


def address(base_url: str | None) -> str:
    """host:port of an OpenAI-compatible base URL, as a diarist would type it."""
    if not base_url:
        return "api.openai.com"
    url = base_url if "://" in base_url else "http://" + base_url
    parsed = urlparse(url)
    host = parsed.hostname or base_url
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parsed.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


class Explanation(NamedTuple):
    kind: str  # not_running | unreachable | disconnected | timeout | key_refused | model_unknown | no_api |
    #            busy | server_error | refused | too_long | bad_reply | error
    text: str


def explain(exc: BaseException, *, base_url: str | None, model: str = "", timeout_s: float | None = None,
            resent: bool = True) -> Explanation:
    """What went wrong with a call to the server at `base_url`, in a sentence a diarist can act on.
    `resent`: False when a timeout was not sent again (a local server still working on it)."""
    where = address(base_url)
    status = getattr(exc, "status_code", None)
    name = exc.__class__.__name__
    text = _short(error_text(exc)) if status else ""
    if isinstance(exc, LLMError) and exc.kind:
        return Explanation(exc.kind, str(exc))
    if "Timeout" in name or isinstance(exc, TimeoutError):
        limit = f"{timeout_s:g} s" if timeout_s else "the time limit"
        again = "" if resent else (" memoir did not ask again, so the server is not given the same work twice "
                                   "while it may still be working on the first.")
        return Explanation("timeout", f"The model at {where} took longer than {limit} to answer.{again} "
                                      f"A slow or busy model needs more time: raise the limit in {SETTINGS_PLACE}.")
    if status is None and ("Connection" in name or isinstance(exc, OSError)):
        cause = _root_cause(exc)
        if isinstance(cause, socket.gaierror) or re.search(
                r"name or service not known|nodename nor servname|getaddrinfo|name resolution|no address",
                str(cause), re.I):
            host = where.rsplit(":", 1)[0]
            return Explanation("unreachable", f"The name {host} could not be found: check the server address in "
                                              f"{SETTINGS_PLACE}, and that this computer is online.")
        if isinstance(cause, ConnectionRefusedError) or re.search(r"refused|errno 111|errno 61|10061", str(cause),
                                                                   re.I):
            return Explanation("not_running", f"The model server at {where} is not running (nothing answers "
                                              f"there). Start it, or check the address in {SETTINGS_PLACE}.")
        return Explanation("disconnected", f"The model server at {where} closed the connection without answering: "
                                           "it may have stopped or crashed. Check that it is still running.")
    if status in (401, 403):
        return Explanation("key_refused", f"The server at {where} refused the API key (HTTP {status}). Check the key "
                                          f"in {SETTINGS_PLACE}.")
    if status == 404:
        if re.search(r"model", text, re.I) or not text:
            named = f"the model “{model}”" if model else "this model"
            return Explanation("model_unknown", f"The server at {where} does not know {named}"
                                                f"{f' ({text})' if text else ''}. Choose one of its models in "
                                                f"{SETTINGS_PLACE}.")
        return Explanation("no_api", f"The server at {where} has no OpenAI-compatible API at this address "
                                     f"({text}). Check the address; it usually ends in /v1.")
    if status == 429:
        return Explanation("busy", f"The server at {where} is busy or over its usage limit ({text}). memoir will "
                                   "try again later.")
    if isinstance(status, int) and status >= 500:
        # A server that failed the same way for every request since (llama-cpp-python after a reply ran
        # its context out: "llama_decode returned 1") needs a restart; memoir cannot tell it so.
        return Explanation("server_error", f"The server at {where} reported an error (HTTP {status}): {text}. "
                                           "If it keeps failing, restart the model server.")
    if isinstance(status, int) and status >= 400:
        if _TOO_LONG.search(text):
            return too_long(where, text)
        return Explanation("refused", f"The server at {where} refused the request (HTTP {status}): {text}")
    if isinstance(exc, (ValueError, UnicodeError)):
        return Explanation("bad_reply", f"The server at {where} sent a reply that could not be read as JSON.")
    return Explanation("error", f"The call to the model server at {where} failed: {_short(str(exc)) or name}.")


def too_long(where: str, text: str) -> Explanation:
    return Explanation("too_long", f"The prompt is longer than the context window of the model at {where} "
                                   f"({_short(text)}).")


def _short(text: str, limit: int = 200) -> str:
    """The server's own words, first line first: a traceback after them says nothing to a diarist."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _root_cause(exc: BaseException) -> BaseException:
    seen = exc
    for _ in range(20):  # a chain is short; a cycle in one is not followed for ever
        below = seen.__cause__ or seen.__context__
        if below is None:
            break
        seen = below
    return seen
