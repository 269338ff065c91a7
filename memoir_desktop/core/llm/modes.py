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
    """The last user message in the JSON and text modes (the tool is not there to carry the schema).

    The model is shown the shape to fill in and the rules of its fields in words, not the JSON
    schema: small models (Qwen2.5 0.5B, SmolLM2 135M on llama.cpp) answered a schema with the schema
    itself, in JSON mode and in plain text alike, and filled in a shape
    (tests/data/llm_servers/llama_cpp.json)."""
    rules, optional = [], []
    for field, sub, required in _fields(schema):
        if sub.get("enum"):
            rules.append(f"{field} is one of: {', '.join(str(v) for v in sub['enum'] if v is not None)}.")
        if sub.get("description"):
            rules.append(f"{field}: {sub['description']}.")
        if not required:
            optional.append(field)
    if optional:
        rules.append(f"Leave out {', '.join(optional)} where {'it does' if len(optional) == 1 else 'they do'} "
                     "not apply.")
    return (f"Reply with the arguments of `{name}` as one JSON object only (no prose, no code fence). "
            + "".join(r + " " for r in rules)
            + f"Fill in this shape: {json.dumps(example(schema), ensure_ascii=False)}")


def example(schema: dict, required: bool = True):
    """The shape of a value of `schema`, with placeholders. A model may copy a placeholder as it is,
    so none is a value that does something: a list of numbers (ids) is shown empty, an optional
    number null, an optional choice not pre-filled."""
    t = schema.get("type")
    t = next((x for x in t if x != "null"), None) if isinstance(t, list) else t
    if schema.get("enum") and required:
        return schema["enum"][0]
    if t == "object" or "properties" in schema:
        needed = set(schema.get("required", schema.get("properties", {})))
        return {k: example(v, k in needed) for k, v in schema.get("properties", {}).items()}
    if t == "array":
        items = schema.get("items") or {}
        return [example(items)] if items.get("type") in ("object", "string", None) or "properties" in items else []
    if t in ("integer", "number"):
        return 0 if required else None
    return False if t == "boolean" else "..."


def _fields(schema: dict) -> list[tuple[str, dict, bool]]:
    """(name, schema, required) of every named field, nested ones included."""
    out = []
    needed = set(schema.get("required", schema.get("properties", {})))
    for key, sub in (schema.get("properties") or {}).items():
        out.append((key, sub, key in needed))
        out += _fields(sub)
    if isinstance(schema.get("items"), dict):
        out += _fields(schema["items"])
    return out


# A model that sends back the example shape it was shown instead of filling it in (Qwen2.5 0.5B did,
# for every memory-sorting step) is asked that step again only every tenth time after three such
# replies in a row; one real answer and it is asked every time again (pipeline/update.py).
ECHOES_BEFORE_SKIP = 3
ASK_AGAIN_EVERY = 10


def asks(echoes: int) -> bool:
    """Whether a step whose replies were the example `echoes` times in a row is asked this time."""
    return echoes < ECHOES_BEFORE_SKIP or echoes % ASK_AGAIN_EVERY == 0


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
