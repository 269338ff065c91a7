"""What can go wrong with an LLM call, and how to tell one HTTP 400 from another.

A 400 is not one thing: "this server has no tool calls" means ask another way and remember it;
"the prompt is too long" means send less, and must not switch anything off; anything else is a
request the server refused. Servers word these differently (OpenAI, vLLM, llama.cpp, Ollama,
LM Studio), so the classification reads the error text loosely.
"""

from __future__ import annotations

import re


class LLMError(RuntimeError):
    pass


class LLMUnavailable(LLMError):
    """No LLM configured, or it could not be reached after retries. The work waits."""


class LLMBadReply(LLMError):
    """The LLM answered, but not with something usable. `raw` keeps what it said."""

    def __init__(self, message: str, raw: str = ""):
        super().__init__(message)
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


def error_text(exc: Exception) -> str:
    """The server's message, wherever the SDK put it."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return f"{err.get('code') or ''} {err.get('type') or ''} {err['message']}".strip()
        if isinstance(err, str):
            return err
    return str(getattr(exc, "message", None) or exc)


def classify_400(exc: Exception, *, asked_tools: bool, asked_format: bool) -> str:
    """'too_long' | 'no_tools' | 'no_format' | 'bad_request' for a refused request."""
    text = error_text(exc)
    if _TOO_LONG.search(text):
        return "too_long"
    if asked_tools and _NO_TOOLS.search(text):
        return "no_tools"
    if asked_format and _NO_FORMAT.search(text):
        return "no_format"
    return "bad_request"


def describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    name = exc.__class__.__name__
    return f"{name} (HTTP {status})" if status else name
