"""The ways a server can be asked for structured arguments, best first, and how to ask in each.

- tools:       a forced tool call (`tool_choice="required"`): OpenAI, vLLM, LM Studio, Ollama, llama.cpp
               with --jinja; the arguments come back as a string.
- json_schema: structured output (`response_format` json_schema, strict): the server constrains
               generation to the schema (OpenAI, Ollama, LM Studio, llama.cpp, vLLM).
- json_object: JSON mode: valid JSON, any shape; the schema goes into the prompt.
- text:        plain text with the schema in the prompt; the reply reader finds the value in prose.
"""

from __future__ import annotations

import copy
import json

MODES = ("tools", "json_schema", "json_object", "text")
MODE_LABELS = {
    "tools": "tool calls",
    "json_schema": "structured output (JSON schema)",
    "json_object": "JSON mode",
    "text": "plain text",
}


def next_mode(mode: str) -> str | None:
    i = MODES.index(mode)
    return MODES[i + 1] if i + 1 < len(MODES) else None


def strict_schema(schema: dict) -> dict:
    """The schema in the form strict structured output accepts: every property required, optional
    ones nullable, no extra properties (OpenAI rejects a strict schema otherwise; others ignore it)."""
    out = copy.deepcopy(schema)

    def walk(node: dict) -> None:
        if node.get("type") == "object" or "properties" in node:
            props = node.get("properties", {})
            required = set(node.get("required", []))
            for key, sub in props.items():
                if key not in required:
                    t = sub.get("type")
                    if isinstance(t, str):
                        sub["type"] = [t, "null"]
                    elif isinstance(t, list) and "null" not in t:
                        sub["type"] = [*t, "null"]
                    if "enum" in sub and None not in sub["enum"]:
                        sub["enum"] = [*sub["enum"], None]
                walk(sub)
            node["required"] = list(props)
            node["additionalProperties"] = False
        if isinstance(node.get("items"), dict):
            walk(node["items"])

    walk(out)
    return out


def instruction(name: str, schema: dict) -> str:
    """The last user message in the JSON and text modes (the tool is not there to carry the schema)."""
    return (f"Reply with one JSON object only (no prose, no code fence) for `{name}`, matching this "
            f"JSON schema:\n{json.dumps(schema, ensure_ascii=False)}")


def request(mode: str, messages: list[dict], name: str, description: str, schema: dict) -> dict:
    """The keyword arguments of chat.completions.create for one structured call in `mode`."""
    if mode == "tools":
        return {"messages": messages, "temperature": 0, "tool_choice": "required",
                "tools": [{"type": "function",
                           "function": {"name": name, "description": description, "parameters": schema}}]}
    msgs = [*messages, {"role": "user", "content": instruction(name, schema)}]
    kwargs: dict = {"messages": msgs, "temperature": 0}
    if mode == "json_schema":
        kwargs["response_format"] = {"type": "json_schema",
                                     "json_schema": {"name": name, "schema": strict_schema(schema), "strict": True}}
    elif mode == "json_object":
        kwargs["response_format"] = {"type": "json_object"}
    return kwargs


def raw_arguments(mode: str, message, name: str) -> str:
    """The text that holds the arguments in a reply message of `mode`."""
    if mode == "tools":
        for call in getattr(message, "tool_calls", None) or []:
            fn = getattr(call, "function", None)
            if fn is not None and (fn.name == name or not fn.name):
                return fn.arguments or ""
        calls = getattr(message, "tool_calls", None) or []
        if calls and getattr(calls[0], "function", None) is not None:
            return calls[0].function.arguments or ""  # a misspelt tool name still carries the value
    return getattr(message, "content", None) or ""
