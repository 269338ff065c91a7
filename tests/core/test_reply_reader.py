"""The tolerant reply reader: what real models send back, and the arguments object it means."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_desktop.core.llm.reader import Reading, Unreadable, clean_text, read_reply, strip_thinking

FACTS = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
    "required": ["facts"],
}
OPERATIONS = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "fact": {"type": "integer"},
                    "event": {"type": "string", "enum": ["ADD", "UPDATE", "DELETE", "NOOP"]},
                    "id": {"type": ["integer", "null"]},
                    "text": {"type": "string"},
                },
                "required": ["fact", "event"],
            },
        }
    },
    "required": ["operations"],
}
ENTITIES = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "type": {"type": "string"}},
                "required": ["name", "type"],
            },
        }
    },
    "required": ["entities"],
}
OBSOLETE = {
    "type": "object",
    "properties": {"obsolete": {"type": "array", "items": {"type": "integer"}}},
    "required": ["obsolete"],
}
MERGE = {
    "type": "object",
    "properties": {"merge": {"type": "boolean"}, "text": {"type": "string"}},
    "required": ["merge"],
}

SEOUL = "나는 서울에 산다"
BIKE = "지수와 한강에서 자전거를 탔다"
ADD_SEOUL = {"fact": 0, "event": "ADD", "id": None, "text": SEOUL}
JISU = {"name": "지수", "type": "person"}
HANGANG = {"name": "한강", "type": "place"}


def facts_json(*xs: str) -> str:
    return json.dumps({"facts": list(xs)}, ensure_ascii=False)


def ok(case: str, schema: dict, raw: str, value: dict, *repairs: str):
    return pytest.param(schema, raw, value, repairs, id=case)


def bad(case: str, schema: dict, raw: str | None, reason: str):
    return pytest.param(schema, raw, reason, id=case)


# (case, schema, raw reply, value, repairs that must be named; "truncated" among them means truncated=True)
RECOVERED = [
    # 1. fences and prose
    ok("fence-json", FACTS, f"```json\n{facts_json(SEOUL)}\n```", {"facts": [SEOUL]}, "fence"),
    ok("fence-bare", FACTS, f"```\n{facts_json(BIKE)}\n```", {"facts": [BIKE]}, "fence"),
    ok("fence-one-line", FACTS, f"```json{facts_json(SEOUL)}```", {"facts": [SEOUL]}, "fence"),
    ok(
        "prose-around",
        FACTS,
        f"Sure! The facts {{as asked}}:\n{facts_json(SEOUL, BIKE)}\nBye.",
        {"facts": [SEOUL, BIKE]},
    ),
    ok(
        "prose-and-fence",
        FACTS,
        f"Here you go:\n```json\n{facts_json('a')}\n```\nDone.",
        {"facts": ["a"]},
        "fence",
    ),
    # 2. think blocks
    ok(
        "think",
        FACTS,
        f"<think>\n음 {facts_json('draft')}\n</think>\n{facts_json(SEOUL)}",
        {"facts": [SEOUL]},
        "think",
    ),
    ok("think-caps", FACTS, f"<THINK>one\ntwo</Think>{facts_json('a')}", {"facts": ["a"]}, "think"),
    ok(
        "think-unclosed-last-wins",
        FACTS,
        f"<think>maybe {facts_json('x')}; final:\n{facts_json('a')}",
        {"facts": ["a"]},
        "think",
    ),
    ok(
        "think-unclosed-inside",
        FACTS,
        f"<think>the answer is {facts_json(SEOUL)} I think",
        {"facts": [SEOUL]},
        "think",
    ),
    ok(
        "think-orphan-close",
        FACTS,
        f"reasoning {facts_json('x')}\n</think>\n\n{facts_json('a')}",
        {"facts": ["a"]},
        "think",
    ),
    ok(
        "think-orphan-nothing-after",
        FACTS,
        f"reasoning {facts_json('a')}</think>\n",
        {"facts": ["a"]},
        "think",
    ),
    ok(
        "think-tag-in-a-string",
        FACTS,
        f"```json\n{facts_json('</think> is a tag')}\n```",
        {"facts": ["</think> is a tag"]},
    ),
    # 3. Python literals
    ok(
        "python-dict",
        FACTS,
        "{'facts': ['it\\'s', \"I'm here\"]}",
        {"facts": ["it's", "I'm here"]},
        "python-literal",
    ),
    ok(
        "python-words",
        MERGE,
        "{'merge': True, 'text': None}",
        {"merge": True, "text": None},
        "python-literal",
    ),
    ok("python-words-json-quotes", MERGE, '{"merge": False}', {"merge": False}, "python-literal"),
    # 4. trailing commas and comments, outside strings only
    ok("trailing-comma", FACTS, '{"facts": ["a", "b",],}', {"facts": ["a", "b"]}, "trailing-comma"),
    ok(
        "comments",
        FACTS,
        '{\n  // the facts\n  "facts": ["a" /* 1st */, "b"]\n}',
        {"facts": ["a", "b"]},
        "comment",
    ),
    ok(
        "tricky-strings-survive",
        FACTS,
        '{"facts": ["see http://x.kr // no comment", "a,]b", "{x}", "/* kept */", "say \\"hi\\"",], // c\n}',
        {"facts": ["see http://x.kr // no comment", "a,]b", "{x}", "/* kept */", 'say "hi"']},
        "trailing-comma",
        "comment",
    ),
    # 5. a top-level array
    ok("wrapped-array", FACTS, json.dumps([SEOUL, BIKE]), {"facts": [SEOUL, BIKE]}, "wrapped-array"),
    ok("wrapped-objects", ENTITIES, json.dumps([JISU]), {"entities": [JISU]}, "wrapped-array"),
    ok("wrapped-ints", OBSOLETE, "[3, 7]", {"obsolete": [3, 7]}, "wrapped-array"),
    # 6. items as objects
    ok(
        "item-objects",
        FACTS,
        json.dumps({"facts": [{"fact": SEOUL, "confidence": 0.9}, {"text": BIKE}, {"memory": "c"}]}),
        {"facts": [SEOUL, BIKE, "c"]},
        "item-objects",
    ),
    ok(
        "item-first-text-key",
        FACTS,
        '{"facts": [{"fact": 3, "content": "x", "name": "y"}]}',
        {"facts": ["x"]},
        "item-objects",
    ),
    ok(
        "item-without-text-dropped",
        FACTS,
        '{"facts": ["a", {"confidence": 1}, {"statement": "b"}]}',
        {"facts": ["a", "b"]},
        "item-objects",
        "dropped-item",
    ),
    # 7. a string or a single object where a list was asked
    ok("string-as-list", FACTS, '{"facts": "I like tea"}', {"facts": ["I like tea"]}, "string-as-list"),
    ok("empty-string-as-list", FACTS, '{"facts": ""}', {"facts": []}, "string-as-list"),
    ok("object-as-list", ENTITIES, json.dumps({"entities": JISU}), {"entities": [JISU]}, "object-as-list"),
    ok(
        "object-as-list-of-strings",
        FACTS,
        json.dumps({"facts": {"fact": SEOUL}}),
        {"facts": [SEOUL]},
        "item-objects",
    ),
    ok("null-as-list", OBSOLETE, '{"obsolete": null}', {"obsolete": []}, "null-as-list"),
    # 8. double encoding
    ok("double-encoded", FACTS, json.dumps(facts_json(SEOUL)), {"facts": [SEOUL]}, "double-encoded"),
    ok(
        "double-encoded-twice",
        FACTS,
        json.dumps(json.dumps(facts_json("a"))),
        {"facts": ["a"]},
        "double-encoded",
    ),
    ok(
        "double-encoded-field",
        FACTS,
        json.dumps({"facts": json.dumps(["a", "b"])}),
        {"facts": ["a", "b"]},
        "double-encoded",
    ),
    ok(
        "double-encoded-item",
        ENTITIES,
        json.dumps({"entities": [json.dumps(JISU), HANGANG]}),
        {"entities": [JISU, HANGANG]},
        "double-encoded",
    ),
    # 9. several objects
    ok(
        "merged-back-to-back",
        FACTS,
        '{"facts":["a"]}{"facts":["b"]}',
        {"facts": ["a", "b"]},
        "merged-objects",
    ),
    ok(
        "merged-prose",
        FACTS,
        f"{facts_json(SEOUL)}\nand also:\n{facts_json(BIKE)}",
        {"facts": [SEOUL, BIKE]},
        "merged-objects",
    ),
    ok(
        "merged-first-scalar-wins",
        MERGE,
        '{"merge": true}\n{"merge": false, "text": "x"}',
        {"merge": True, "text": "x"},
        "merged-objects",
    ),
    ok(
        "merged-list-of-objects",
        FACTS,
        '[{"facts": ["a"]}, {"facts": ["b"]}]',
        {"facts": ["a", "b"]},
        "merged-objects",
    ),
    # 10. truncation
    ok("cut-in-string", FACTS, '{"facts": ["a", "b", "c', {"facts": ["a", "b"]}, "truncated"),
    ok("cut-after-item", FACTS, '{"facts": ["a", "b"', {"facts": ["a", "b"]}, "truncated"),
    ok("cut-before-brace", FACTS, '{"facts": ["a", "b"]', {"facts": ["a", "b"]}, "truncated"),
    ok("cut-after-comma", FACTS, f'{{"facts": ["{SEOUL}", ', {"facts": [SEOUL]}, "truncated"),
    ok("cut-at-list-start", FACTS, '{"facts": [', {"facts": []}, "truncated"),
    ok("cut-in-fence", FACTS, '```json\n{"facts": ["a", "b', {"facts": ["a"]}, "fence", "truncated"),
    ok("cut-python", FACTS, "{'facts': ['a', 'b", {"facts": ["a"]}, "python-literal", "truncated"),
    ok(
        "cut-inside-object-item",
        OPERATIONS,
        json.dumps({"operations": [ADD_SEOUL]})[:-2] + ', {"fact": 1, "event": "UPD',
        {"operations": [ADD_SEOUL]},
        "truncated",
    ),
    ok(
        "cut-after-key-in-object-item",
        ENTITIES,
        '{"entities": [{"name": "지수", "type": "person"}, {"name": "한강", "type"',
        {"entities": [JISU]},
        "truncated",
    ),
    ok("cut-after-optional", MERGE, '{"merge": true, "text": "half a sen', {"merge": True}, "truncated"),
    ok("cut-after-comment", FACTS, '{"facts": ["a", // more\n "b', {"facts": ["a"]}, "truncated"),
    # 11. wrappers
    ok(
        "arguments",
        FACTS,
        '{"name": "save_facts", "arguments": {"facts": ["a"]}}',
        {"facts": ["a"]},
        "arguments-wrapper",
    ),
    ok(
        "arguments-string",
        FACTS,
        json.dumps({"name": "save_facts", "arguments": facts_json(SEOUL)}),
        {"facts": [SEOUL]},
        "arguments-wrapper",
    ),
    ok(
        "function",
        FACTS,
        json.dumps({"type": "function", "function": {"name": "save_facts", "arguments": facts_json("a")}}),
        {"facts": ["a"]},
        "arguments-wrapper",
    ),
    ok(
        "call-list",
        FACTS,
        '[{"name": "save_facts", "arguments": {"facts": ["a"]}}]',
        {"facts": ["a"]},
        "arguments-wrapper",
    ),
    ok(
        "call-list-two",
        FACTS,
        '[{"name": "s", "arguments": {"facts": ["a"]}}, {"name": "s", "arguments": {"facts": ["b"]}}]',
        {"facts": ["a", "b"]},
        "arguments-wrapper",
        "merged-objects",
    ),
    ok(
        "llama-parameters",
        FACTS,
        '{"name": "s", "parameters": {"facts": ["a"]}}',
        {"facts": ["a"]},
        "arguments-wrapper",
    ),
    ok(
        "hermes-tag",
        FACTS,
        f'<tool_call>\n{{"name": "save_facts", "arguments": {facts_json(BIKE)}}}\n</tool_call>',
        {"facts": [BIKE]},
        "tool-call-tag",
        "arguments-wrapper",
    ),
    ok(
        "hermes-two-tags",
        FACTS,
        '<tool_call>{"name": "s", "arguments": {"facts": ["a"]}}</tool_call>\n'
        '<tool_call>{"name": "s", "arguments": {"facts": ["b"]}}</tool_call>',
        {"facts": ["a", "b"]},
        "tool-call-tag",
        "merged-objects",
    ),
    ok(
        "hermes-after-think-cut",
        FACTS,
        '<think>ok</think>\n<tool_call>\n{"name": "s", "arguments": {"facts": ["a", "b',
        {"facts": ["a"]},
        "think",
        "tool-call-tag",
        "truncated",
    ),
    # 12. a renamed key
    ok("renamed-key", FACTS, '{"memories": ["a"]}', {"facts": ["a"]}, "renamed-key"),
    ok(
        "renamed-key-objects",
        OPERATIONS,
        json.dumps({"ops": [ADD_SEOUL]}),
        {"operations": [ADD_SEOUL]},
        "renamed-key",
    ),
    ok(
        "renamed-key-item-objects",
        FACTS,
        '{"items": [{"fact": "a"}]}',
        {"facts": ["a"]},
        "renamed-key",
        "item-objects",
    ),
    # 14. surrogates
    ok("lone-surrogate-escape", FACTS, '{"facts": ["\\ud83d broken"]}', {"facts": ["\ufffd broken"]}),
    ok("surrogate-pair-escape", FACTS, '{"facts": ["\\ud83d\\ude00 ok"]}', {"facts": ["\U0001f600 ok"]}),
    ok("lone-surrogate-raw", FACTS, '{"facts": ["a\ud83d"]}', {"facts": ["a\ufffd"]}),
    ok(
        "surrogates-in-python",
        FACTS,
        "{'facts': ['\\ud83d\\ude00', '\\udc00']}",
        {"facts": ["\U0001f600", "\ufffd"]},
    ),
    # 15. the model found nothing
    ok("empty-facts", FACTS, '{"facts": []}', {"facts": []}),
    ok("empty-array", FACTS, "[]", {"facts": []}, "wrapped-array"),
    ok("empty-obsolete", OBSOLETE, '{"obsolete": []}', {"obsolete": []}),
    ok("empty-in-fence", FACTS, 'Nothing new.\n```json\n{"facts": []}\n```', {"facts": []}, "fence"),
    # shape only: vocabulary and scalar types are the typed layer's business
    ok(
        "scalars-untouched",
        OPERATIONS,
        '{"operations": [{"fact": "0", "event": "NONE", "id": "null"}]}',
        {"operations": [{"fact": "0", "event": "NONE", "id": "null"}]},
    ),
    ok("extra-keys-kept", FACTS, '{"facts": ["a"], "note": "x"}', {"facts": ["a"], "note": "x"}),
    ok("unquoted-key", FACTS, '{facts: ["a"]}', {"facts": ["a"]}, "unquoted-key"),
    ok(
        "raw-newline-in-string", FACTS, '{"facts": ["line one\nline two"]}', {"facts": ["line one\nline two"]}
    ),
    ok("emoji", FACTS, facts_json("🚲 지수와 한강 🌊"), {"facts": ["🚲 지수와 한강 🌊"]}),
]

# (case, schema, raw reply, words the reason must contain)
UNREADABLE = [
    bad("none", FACTS, None, "empty"),
    bad("empty", FACTS, "", "empty"),
    bad("whitespace", FACTS, " \n\t ", "empty"),
    bad("refusal", FACTS, "I cannot help with that", "no JSON"),
    bad("prose-with-brackets", FACTS, "I [really] cannot {help} with that", "no JSON"),
    bad("think-only", FACTS, "<think>I should answer in JSON</think>", "no JSON"),
    bad("wrong-shape", FACTS, '{"foo": 1}', 'no "facts"'),
    bad("missing-required", MERGE, '{"text": "a"}', 'no "merge"'),
    bad("number", FACTS, "42", "number"),
    bad("string", FACTS, '"I like tea"', "string"),
    bad("null", FACTS, "null", "null"),
    bad("list-for-no-single-array", MERGE, '["a"]', "list"),
    bad("two-candidate-renames", FACTS, '{"memories": ["a"], "notes": ["b"]}', 'no "facts"'),
    bad("rename-wrong-kind", ENTITIES, '{"people": [1, 2]}', 'no "entities"'),
    bad("all-items-without-text", FACTS, '{"facts": [{"confidence": 0.9}]}', "text"),
    bad("schema-echo", FACTS, json.dumps(FACTS), "schema"),
    bad("schema-echo-fenced", OPERATIONS, f"```json\n{json.dumps(OPERATIONS)}\n```", "schema"),
    bad("schema-echo-properties", FACTS, '{"properties": {"facts": {"type": "array"}}}', "schema"),
    bad("schema-echo-field", FACTS, '{"facts": {"type": "array", "items": {"type": "string"}}}', "schema"),
    bad("schema-echo-tool", FACTS, json.dumps({"name": "save_facts", "parameters": FACTS}), "schema"),
    bad("cut-before-value", FACTS, '{"facts": ', "cut off"),
    bad("cut-in-key", FACTS, '{"fac', "cut off"),
    bad("cut-before-required", MERGE, '{"text": "abc", "mer', 'cut off before "merge"'),
    bad("cut-in-value", MERGE, '{"merge": tr', "cut off"),
]


@pytest.mark.parametrize(("schema", "raw", "value", "repairs"), RECOVERED)
def test_recovers(schema, raw, value, repairs):
    reading = read_reply(raw, schema)
    assert reading.value == value
    assert set(repairs) <= set(reading.repairs), reading.repairs
    assert reading.truncated is ("truncated" in repairs)
    json.dumps(reading.value, ensure_ascii=False).encode("utf-8")  # never raises on surrogates


@pytest.mark.parametrize(("schema", "raw", "reason"), UNREADABLE)
def test_unreadable(schema, raw, reason):
    with pytest.raises(Unreadable) as info:
        read_reply(raw, schema)
    message = str(info.value)
    assert reason in message
    assert message and "\n" not in message and len(message) < 100


def test_valid_reply_has_no_repairs():
    assert read_reply(facts_json(SEOUL, BIKE), FACTS) == Reading({"facts": [SEOUL, BIKE]})


def test_finish_reason_length_marks_a_complete_reply_truncated():
    reading = read_reply(facts_json("a"), FACTS, finish_reason="length")
    assert reading.value == {"facts": ["a"]} and reading.truncated
    assert not read_reply(facts_json("a"), FACTS, finish_reason="stop").truncated


def test_finish_reason_length_without_json_says_cut_off():
    with pytest.raises(Unreadable, match="cut off"):
        read_reply("Let me think about the facts", FACTS, finish_reason="length")


def test_tags_and_fences_quoted_in_strings_are_content():
    xs = ["<tool_call>x</tool_call>", "```json", "<think>", "</think> done"]
    raw = json.dumps({"facts": xs})
    assert read_reply(f"Here:\n```json\n{raw}\n```", FACTS).value == {"facts": xs}
    assert read_reply(f"<think>hmm</think>\n{raw}", FACTS).value == {"facts": xs}
    assert read_reply(raw[:-2] + ', "cut', FACTS).value == {"facts": xs}


def test_cut_off_korean_keeps_punctuation_inside_strings():
    reading = read_reply('{"facts": ["서울, 부산]", "{지수}", "한강', FACTS)
    assert reading.value == {"facts": ["서울, 부산]", "{지수}"]} and reading.truncated


def test_schema_echo_message():
    with pytest.raises(Unreadable) as info:
        read_reply(json.dumps(ENTITIES), ENTITIES)
    assert str(info.value) == "the model returned the schema instead of values"


PATHOLOGICAL = {
    "open-brackets": "[" * 2000,
    "open-braces": "{" * 2000,
    "deep-objects": '{"a": [' * 1000 + "x",
    "prose-brackets": "[note] " * 2000,
    "open-quotes": '["a", "b' + ' "x' * 2000,
}


@pytest.mark.parametrize("raw", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_replies_end_quickly(raw):
    # Bounded work (cut points and bracket starts are capped): garbage must not stall the writer.
    try:
        read_reply(raw, FACTS)
    except Unreadable:
        pass


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("<think>plan</think>\nHello", "\nHello"),
        ("plan</think>Hello", "Hello"),
        ("Hello<think>more", "Hello"),
        ("<think>only reasoning", "only reasoning"),
        ("no tags", "no tags"),
        ('Use ["<think>", "</think>"] as tags', 'Use ["<think>", "</think>"] as tags'),
    ],
)
def test_strip_thinking(text, answer):
    assert strip_thinking(text) == answer


def test_unreadable_is_a_value_error():
    assert issubclass(Unreadable, ValueError)


def test_python_literal_is_never_evaluated():
    with pytest.raises(Unreadable):
        read_reply("{'facts': [__import__('os').getcwd()]}", FACTS)


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("plain 한국어 😀", "plain 한국어 😀"),
        ("a\ud83d", "a\ufffd"),
        ("\ude00b", "\ufffdb"),
        ("\ud83d\ud83d", "\ufffd\ufffd"),
        ("\ud83d\ude00", "\U0001f600"),
        ("", ""),
    ],
)
def test_clean_text(text, clean):
    assert clean_text(text) == clean
    clean_text(text).encode("utf-8")


# --- properties -----------------------------------------------------------------------------------

TRICKY = [
    "나는 서울에 산다",
    BIKE,
    "😀",
    '"',
    "'",
    "\\",
    "//",
    "/*",
    ",]",
    ",}",
    "{",
    "}",
    "[",
    "]",
    "```",
    "<think>",
    "</think>",
    "\n",
]
fact_text = st.lists(st.sampled_from(TRICKY) | st.text(max_size=6), max_size=4).map("".join)
fact_lists = st.lists(fact_text, max_size=6)


@settings(max_examples=300, deadline=None)
@given(xs=fact_lists, ascii_only=st.booleans())
def test_any_valid_reply_reads_back(xs, ascii_only):
    raw = json.dumps({"facts": xs}, ensure_ascii=ascii_only)
    assert read_reply(raw, FACTS).value == {"facts": xs}
    fenced = f"Here are the facts I found:\n```json\n{raw}\n```\nAnything else?"
    assert read_reply(fenced, FACTS).value == {"facts": xs}


@settings(max_examples=300, deadline=None)
@given(xs=fact_lists, ascii_only=st.booleans(), data=st.data())
def test_a_cut_off_reply_keeps_only_complete_items(xs, ascii_only, data):
    raw = json.dumps({"facts": xs}, ensure_ascii=ascii_only)
    cut = data.draw(st.integers(min_value=0, max_value=len(raw)))
    try:
        reading = read_reply(raw[:cut], FACTS)
    except Unreadable:
        return
    kept = reading.value["facts"]
    assert kept == xs[: len(kept)]
    assert reading.truncated or cut == len(raw)
