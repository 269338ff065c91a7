"""A fake OpenAI-compatible HTTP server on 127.0.0.1 that drives the real `openai` client.

Each test states the LLM behaviour it depends on by setting rules:
    llm.on("save_facts", lambda req: tool({"facts": [...]}))
    llm.on("memory_operations", lambda req: tool({"operations": [...]}))
    llm.on_text(lambda req: "a reply")            # plain completions (answer, summary)
    llm.fail_next(500, times=2)                    # faults, consumed before rules
Replies: tool(args) | raw(content) | raw_tool(arguments_string) | error(status, headers) | slow(seconds, reply)
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    kind: str  # tool | raw | raw_tool | error | hang
    payload: object = None
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


def tool(args: dict) -> Reply:
    return Reply("tool", args)


def raw(content: str) -> Reply:
    return Reply("raw", content)


def raw_tool(arguments: str) -> Reply:
    return Reply("raw_tool", arguments)


def error(status: int, headers: dict | None = None, body: str = "") -> Reply:
    return Reply("error", body or json.dumps({"error": {"message": f"fake {status}", "type": "fake"}}),
                 status=status, headers=headers or {})


def slow(seconds: float, reply: Reply) -> Reply:
    reply.delay = seconds
    return reply


_LINE = re.compile(r"^user: (.*)$", re.M)


def new_exchange(req: dict) -> str:
    """The 'New exchange' section of an extraction prompt."""
    text = req["messages"][-1]["content"]
    return text.split("New exchange:", 1)[-1].split("Call save_facts", 1)[0]


def user_lines(req: dict) -> list[str]:
    return [line.strip() for line in _LINE.findall(new_exchange(req))]


def new_facts(req: dict) -> list[str]:
    """The NEW FACT lines of an update prompt, in order."""
    text = req["messages"][-1]["content"]
    return re.findall(r"^NEW FACT \d+: (.*)$", text, re.M)


def existing(req: dict) -> dict[int, str]:
    """{integer id: memory text} shown to the LLM in an update prompt."""
    text = req["messages"][-1]["content"]
    return {int(i): t for i, t in re.findall(r"^\s+\[(\d+)\] (.*) \(recorded [^)]*\)$", text, re.M)}


def echo_facts(req: dict) -> Reply:
    """Default extraction rule: each user line of the new exchange is one fact."""
    return tool({"facts": user_lines(req)})


def add_all(req: dict) -> Reply:
    return tool({"operations": [{"fact": i, "event": "ADD", "text": f} for i, f in enumerate(new_facts(req))]})


class FakeLLM:
    def __init__(self):
        self.rules: dict[str, object] = {"save_facts": echo_facts, "memory_operations": add_all,
                                         # Graph memory says nothing unless a test sets its rules.
                                         "extract_entities": lambda req: tool({"entities": []}),
                                         "extract_relations": lambda req: tool({"relations": []}),
                                         "obsolete_relations": lambda req: tool({"obsolete": []})}
        self.text_rule = lambda req: "I remember."
        self.requests: list[dict] = []
        self.faults: list[Reply] = []
        self.tools_supported = True
        self.usage = (100, 20)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

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
        name = _tool_name(req)
        if name and not self.tools_supported:
            return error(400, body=json.dumps({"error": {"message": "tools are not supported"}}))
        if name is None and req.get("response_format") and self._json_rule_for(req):
            return self._json_rule_for(req)(req)
        if name is None:
            return raw(self.text_rule(req))
        rule = self.rules.get(name)
        if rule is None:
            return error(500, body=json.dumps({"error": {"message": f"no rule for {name}"}}))
        return rule(req)

    def _json_rule_for(self, req: dict):
        """In JSON mode the tool name appears in the final instruction; reuse the tool rule."""
        last = req["messages"][-1]["content"]
        for name, rule in self.rules.items():
            if f"`{name}`" in last:
                def as_json(r, rule=rule):
                    reply = rule({**r, "messages": r["messages"][:-1]})
                    if reply.kind == "tool":
                        return raw(json.dumps(reply.payload, ensure_ascii=False))
                    return reply
                return as_json
        return None

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model",
                                                                 "created": 0, "owned_by": "test"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                req = json.loads(self.rfile.read(length) or b"{}")
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
                                 "finish_reason": "tool_calls" if "tool_calls" in msg else "stop"}],
                    "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
                })

            def _send(self, status: int, body: dict):
                data = json.dumps(body, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _call(name: str, arguments: str) -> dict:
    return {"id": "call_fake", "type": "function", "function": {"name": name, "arguments": arguments}}


def _tool_name(req: dict) -> str | None:
    tools = req.get("tools") or []
    if not tools:
        return None
    return tools[0]["function"]["name"]
