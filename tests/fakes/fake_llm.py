"""A fake OpenAI-compatible HTTP server on 127.0.0.1 that drives the real `openai` client.

Each test states the LLM behaviour it depends on by setting rules:
    llm.on("save_facts", lambda req: tool({"facts": [...]}))
    llm.on("memory_operations", lambda req: tool({"operations": [...]}))
    llm.on_text(lambda req: "a reply")            # plain completions (answer, summary)
    llm.fail_next(500, times=2)                    # faults, consumed before rules
Replies: tool(args) | raw(content) | raw_tool(arguments_string) | error(status, headers) | slow(seconds, reply)

Like real servers, it may lack features (`capabilities`, a subset of {"tools", "json_schema",
"json_object"}): a request using a missing one gets the HTTP 400 such servers send, and a rule's
tool(args) reply is sent as JSON content when the call came in a JSON or text mode. With
`max_prompt_chars` set, longer prompts get the 400 "context length exceeded" servers send.

Real servers also refuse in their own words, often not with a 400: `refuses={"json_schema": (500, body)}`
answers every request in that mode ("tools", "json_schema", "json_object", "text") with that status and
body; `recorded_refusals("llama_cpp")` reads the ones a real server sent (tests/data/llm_servers).
`tools_ignored=True` accepts tools but answers in plain text, as llama.cpp's chatml format does.
A streamed request (`"stream": true`) gets its text reply word by word, `token_delay` seconds apart;
`models_delay` slows the model list (a server busy generating).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class Reply:
    kind: str  # tool | raw | raw_tool | error | hang
    payload: object = None
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    finish_reason: str | None = None  # "length" for a reply cut off at max_tokens


def tool(args: dict) -> Reply:
    return Reply("tool", args)


def raw(content: str, finish_reason: str | None = None) -> Reply:
    return Reply("raw", content, finish_reason=finish_reason)


def raw_tool(arguments: str, finish_reason: str | None = None) -> Reply:
    return Reply("raw_tool", arguments, finish_reason=finish_reason)


def error(status: int, headers: dict | None = None, body: str = "") -> Reply:
    return Reply("error", body or json.dumps({"error": {"message": f"fake {status}", "type": "fake"}}),
                 status=status, headers=headers or {})


def slow(seconds: float, reply: Reply) -> Reply:
    reply.delay = seconds
    return reply


_LINE = re.compile(r"^user: (.*)$", re.M)


def prompt(req: dict, marker: str = "") -> str:
    """The last message holding `marker` (the task prompt, also when a retry note or a JSON
    instruction follows it)."""
    for m in reversed(req.get("messages", [])):
        if marker in (m.get("content") or ""):
            return m["content"]
    return req["messages"][-1]["content"]


def new_exchange(req: dict) -> str:
    """The 'New exchange' section of an extraction prompt."""
    text = prompt(req, "New exchange:")
    return text.split("New exchange:", 1)[-1].split("Call save_facts", 1)[0]


def user_lines(req: dict) -> list[str]:
    return [line.strip() for line in _LINE.findall(new_exchange(req))]


def new_facts(req: dict) -> list[str]:
    """The NEW FACT lines of an update prompt, in order."""
    text = prompt(req, "NEW FACT")
    return re.findall(r"^NEW FACT \d+: (.*)$", text, re.M)


def existing(req: dict) -> dict[int, str]:
    """{integer id: memory text} shown to the LLM in an update prompt."""
    text = prompt(req, "NEW FACT")
    return {int(i): t for i, t in re.findall(r"^\s+\[(\d+)\] (.*) \(recorded [^)]*\)$", text, re.M)}


def echo_facts(req: dict) -> Reply:
    """Default extraction rule: each user line of the new exchange is one fact."""
    return tool({"facts": user_lines(req)})


def add_all(req: dict) -> Reply:
    return tool({"operations": [{"fact": i, "event": "ADD", "text": f} for i, f in enumerate(new_facts(req))]})


ALL_CAPABILITIES = frozenset({"tools", "json_schema", "json_object"})
NO_TOOLS_MESSAGE = "registry.ollama.ai/library/fake-model does not support tools"
NO_SCHEMA_MESSAGE = "response_format type json_schema is not supported by this server"
NO_JSON_MODE_MESSAGE = "response_format is not supported"
TOO_LONG = {"error": {"message": "This model's maximum context length is 4096 tokens. However, your messages "
                                 "resulted in 9000 tokens. Please reduce the length of the messages.",
                      "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}


RECORDED = Path(__file__).resolve().parents[1] / "data" / "llm_servers"


def recorded_refusals(server: str = "llama_cpp", model: str = "qwen", stage: str = "probe") -> dict:
    """{mode: (status, body)} for each mode the recorded server refused (not a 200)."""
    data = json.loads((RECORDED / f"{server}.json").read_text(encoding="utf-8"))
    return {r["mode"]: (r["status"], json.dumps(r["body"], ensure_ascii=False))
            for r in data["models"][model]["replies"] if r["stage"] == stage and r.get("status") not in (200, None)}


def request_mode(req: dict) -> str:
    if req.get("tools"):
        return "tools"
    fmt = (req.get("response_format") or {}).get("type")
    return fmt if fmt in ("json_schema", "json_object") else "text"


class FakeLLM:
    def __init__(self, capabilities=ALL_CAPABILITIES, max_prompt_chars: int | None = None,
                 refuses: dict[str, tuple[int, str]] | None = None, tools_ignored: bool = False,
                 token_delay: float = 0.0, models_delay: float = 0.0):
        self.capabilities = set(capabilities)
        self.token_delay = token_delay
        self.models_delay = models_delay
        self.max_prompt_chars = max_prompt_chars
        self.refuses = dict(refuses or {})
        self.tools_ignored = tools_ignored
        self.rules: dict[str, object] = {"save_facts": echo_facts, "memory_operations": add_all,
                                         "memoir_check": lambda req: tool({"word": "memoir"}),
                                         # Graph memory says nothing unless a test sets its rules.
                                         "extract_entities": lambda req: tool({"entities": []}),
                                         "extract_relations": lambda req: tool({"relations": []}),
                                         "obsolete_relations": lambda req: tool({"obsolete": []})}
        self.text_rule = lambda req: "I remember."
        self.requests: list[dict] = []
        self.faults: list[Reply] = []
        self.usage = (100, 20)
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def tools_supported(self) -> bool:
        return "tools" in self.capabilities

    @tools_supported.setter
    def tools_supported(self, value: bool) -> None:
        (self.capabilities.add if value else self.capabilities.discard)("tools")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def on(self, tool_name: str, rule) -> None:
        self.rules[tool_name] = rule

    def on_text(self, rule) -> None:
        self.text_rule = rule

    def fail_next(self, status: int = 500, times: int = 1, headers: dict | None = None) -> None:
        with self._lock:
            self.faults.extend(error(status, headers) for _ in range(times))

    def push(self, reply: Reply, times: int = 1) -> None:
        with self._lock:
            self.faults.extend([reply] * times)

    def calls(self, tool_name: str | None = None) -> list[dict]:
        if tool_name is None:
            return list(self.requests)
        return [r for r in self.requests if _tool_name(r) == tool_name]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- server -----------------------------------------------------------------------

    def _respond(self, req: dict) -> Reply:
        with self._lock:
            self.requests.append(req)
            if self.faults:
                return self.faults.pop(0)
        if self.max_prompt_chars is not None and _prompt_chars(req) > self.max_prompt_chars:
            return error(400, body=json.dumps(TOO_LONG))
        if request_mode(req) in self.refuses:
            status, body = self.refuses[request_mode(req)]
            return error(status, body=body)
        if self.tools_ignored and req.get("tools"):
            return raw(self.text_rule(req))
        name = _tool_name(req)
        fmt = (req.get("response_format") or {}).get("type")
        if name and "tools" not in self.capabilities:
            return error(400, body=json.dumps({"error": {"message": NO_TOOLS_MESSAGE}}))
        if fmt == "json_schema" and "json_schema" not in self.capabilities:
            return error(400, body=json.dumps({"error": {"message": NO_SCHEMA_MESSAGE}}))
        if fmt == "json_object" and "json_object" not in self.capabilities:
            return error(400, body=json.dumps({"error": {"message": NO_JSON_MODE_MESSAGE}}))
        if name is None:
            name = self._structured_name(req)
            if name is None:
                return raw(self.text_rule(req))
            rule = self.rules.get(name)
            if rule is None:
                return error(500, body=json.dumps({"error": {"message": f"no rule for {name}"}}))
            # The rule sees the request without our trailing JSON instruction, as in tool mode.
            reply = rule({**req, "messages": req["messages"][:-1]})
            if reply.kind == "tool":
                return raw(json.dumps(reply.payload, ensure_ascii=False))
            if reply.kind == "raw_tool":
                return raw(reply.payload, reply.finish_reason)
            return reply
        rule = self.rules.get(name)
        if rule is None:
            return error(500, body=json.dumps({"error": {"message": f"no rule for {name}"}}))
        return rule(req)

    def _structured_name(self, req: dict) -> str | None:
        """The tool a JSON-schema / JSON-mode / plain-text structured request is for."""
        fmt = req.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            return fmt.get("json_schema", {}).get("name")
        last = req["messages"][-1]["content"] if req.get("messages") else ""
        for name in self.rules:
            if f"`{name}`" in (last or ""):
                return name
        return None

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    time.sleep(fake.models_delay)
                    self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model",
                                                                 "created": 0, "owned_by": "test"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                req = json.loads(self.rfile.read(length) or b"{}")
                req["_purpose"] = self.headers.get("x-memoir-purpose")  # what memoir said it was for
                req["_authorization"] = self.headers.get("authorization")  # which key reached this server
                reply = fake._respond(req)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.kind == "hang":
                    time.sleep(float(reply.payload or 30))
                    return
                if reply.kind == "error":
                    body = reply.payload.encode() if isinstance(reply.payload, str) else b""
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if req.get("stream") and reply.kind == "raw":
                    self._stream(req, str(reply.payload or ""))
                    return
                msg: dict = {"role": "assistant", "content": None}
                if reply.kind == "tool":
                    msg["tool_calls"] = [_call(_tool_name(req) or "x", json.dumps(reply.payload, ensure_ascii=False))]
                elif reply.kind == "raw_tool":
                    msg["tool_calls"] = [_call(_tool_name(req) or "x", reply.payload)]
                else:
                    msg["content"] = reply.payload
                p, c = fake.usage
                self._send(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                    "model": req.get("model", "fake-model"),
                    "choices": [{"index": 0, "message": msg,
                                 "finish_reason": reply.finish_reason
                                 or ("tool_calls" if "tool_calls" in msg else "stop")}],
                    "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
                })

            def _stream(self, req: dict, text: str):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                words = re.findall(r"\S+\s*", text) or [""]
                for n, word in enumerate(words):
                    if n:
                        time.sleep(fake.token_delay)
                    chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                             "model": req.get("model", "fake-model"),
                             "choices": [{"index": 0, "delta": {"content": word},
                                          "finish_reason": "stop" if n == len(words) - 1 else None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

            def _send(self, status: int, body: dict):
                data = json.dumps(body, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A client killed mid-request (the crash campaign does it on purpose) is not a server error.
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def _call(name: str, arguments: str) -> dict:
    return {"id": "call_fake", "type": "function", "function": {"name": name, "arguments": arguments}}


def _prompt_chars(req: dict) -> int:
    return sum(len(m.get("content") or "") for m in req.get("messages", []))


def _tool_name(req: dict) -> str | None:
    tools = req.get("tools") or []
    if not tools:
        return None
    return tools[0]["function"]["name"]
