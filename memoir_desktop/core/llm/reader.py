"""The tolerant reply reader: recover a tool's arguments object from what a real model sent back.

Models asked for a JSON object answer with fences, think blocks, Python literals, trailing commas,
wrappers, double encoding, several objects, or output cut off at the token limit. This module fixes
*shape* only (syntax and structure); whether "0" should be 0 or "NONE" means "NOOP" is the typed
layer's business, so scalar values are left exactly as they came.

Pure stdlib and stateless: safe to call from any thread.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reading:
    value: dict
    truncated: bool = False  # the output was cut off; only complete items were kept
    repairs: list[str] = field(default_factory=list)


class Unreadable(ValueError):
    """No usable value. str(exc) says why in one short English sentence."""


ECHO = "the model returned the schema instead of values"
NO_JSON = "the reply has no JSON value"
CUT_OFF = "the reply was cut off before any usable value"
REJECTED = "the model's reasoning set its draft aside and gave no answer"
# Words with which reasoning turns against the draft it just wrote, in English and Korean.
_REJECTION = re.compile(
    r"\b(?:wait|no,|wrong|incorrect|not (?:right|correct|true|stated|mentioned)|never (?:said|says|mentioned)|"
    r"(?:does|did)n[o']?t (?:say|mention|state)|discard|scrap|drop (?:it|that|this)|instead|actually|"
    r"hallucinat\w*|made up|no facts?|nothing to (?:save|extract|remember))\b"
    r"|틀렸|틀린|잘못|아니[다야라]|않았|없다|없어|없음|버리|지우|취소|다시 보니|말한 적")
_NOTHING: Any = object()  # "could not parse", distinct from a parsed null
_MAX_LEVELS = 4  # wrappers or encodings nested deeper than this are not a reply any more
_MAX_CUTS = 32  # places a cut-off reply is tried closed at, in all, latest first
_MAX_MISSES = 100  # bracket starts that are no value; past this the text is not a reply
_TEXT_KEYS = ("fact", "text", "content", "memory", "value", "name", "statement")
_JSON_TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}
# Lists that name things rather than state them: never read as a reply's facts under another name.
_NOT_STATEMENTS = frozenset({"entities", "tags", "keywords", "labels", "names", "topics", "categories", "people",
                             "places", "ids", "sources", "references", "links"})
_SCHEMA_WORDS = {"type", "items", "properties", "required", "enum", "description", "title", "default"}
_SURROGATE = re.compile("[\ud800-\udfff]")
_THINK_TAG = re.compile(r"<(/?)think(?:ing)?>", re.I)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S | re.I)
# A fence closes only at the start of a line, so "```" inside a one-line JSON string is no end.
_FENCE = re.compile(r"```[\w+-]*[ \t]*\n?(.*?)(?:^[ \t]*```|\Z)", re.S | re.M)
_OPEN = re.compile(r"[{\[]")
# The tokens the scanners care about. A string or comment left open runs to the end of the text;
# `close` says whether a string was closed.
_DQ, _SQ = r'"[^"\\]*(?:\\.[^"\\]*)*(?P<close>")?', r"'[^'\\]*(?:\\.[^'\\]*)*(?P<sclose>')?"
_TOKENS = re.compile(
    rf"(?P<quoted>{_DQ}|{_SQ})|(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))|(?P<bracket>[{{}}\[\],])|[^\"'/{{}}\[\],]+|/",
    re.S,
)
_DOUBLE_QUOTED = re.compile(rf"(?P<quoted>{_DQ})|(?P<bracket>[{{}}\[\]])")
_UNQUOTED_KEY = re.compile(r"([{,]\s*)([A-Za-z_][\w-]*)(\s*:)")
# Not after an opening bracket: "[,]" is no list with a trailing comma.
_TRAILING_COMMA = re.compile(r"(?<![\[{\s])(\s*),(\s*[}\]])")
_TIDY_FIXES = ((_TRAILING_COMMA, r"\1\2", "trailing-comma"), (_UNQUOTED_KEY, r'\1"\2"\3', "unquoted-key"))
_TO_JSON = {"True": "true", "False": "false", "None": "null"}
_TO_PYTHON = {v: k for k, v in _TO_JSON.items()}
_KINDS = {type(None): "null", bool: "a boolean", str: "a string", int: "a number", float: "a number"}


def clean_text(text: str) -> str:
    """Lone UTF-16 surrogates become U+FFFD so the text always encodes to UTF-8 (a pair left as two
    code points, as Python escapes leave it, becomes the character it spells)."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def strip_thinking(text: str) -> str:
    """A plain answer without the model's reasoning, or the reasoning if that is all there is."""
    answer, reasoning = _split_thinking(text)
    return answer if answer.strip() or reasoning is None else reasoning


def read_reply(raw: str | None, schema: dict, *, finish_reason: str | None = None) -> Reading:
    if raw is None or not raw.strip():
        raise Unreadable("the reply is empty")
    first_error: Unreadable | None = None
    for text, notes, prefer_last in _views(raw):
        try:
            reading = _read_text(text, schema, notes, prefer_last)
        except Unreadable as exc:
            first_error = first_error or exc
            continue
        reading.truncated = reading.truncated or finish_reason == "length"
        return reading
    assert first_error is not None
    if str(first_error) == NO_JSON:
        answer, _ = _split_thinking(raw)
        listed = _read_list(answer, schema)  # the answer only: a list inside reasoning is a draft
        if listed is not None:
            listed.truncated = finish_reason == "length"
            return listed
    if finish_reason == "length" and str(first_error) == NO_JSON:
        raise Unreadable(CUT_OFF)
    raise first_error


# --- no JSON at all: a Markdown list --------------------------------------------------------------

# "- fact", "* fact", "• fact", "1. fact", "2) fact"
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$")
_EMPHASIS = re.compile(r"^(\*\*|__|[\"'`])(.+)\1$")


def _read_list(text: str, schema: dict) -> Reading | None:
    """A model that answers in plain text with a Markdown list, its fields on lines of their own
    ("entities: 재즈, 피아노"): a line labelled with one of the schema's array properties is that
    property (its items split at commas); the bullets are the one required array's items unless a
    labelled line gave it. A line labelled with another name ("entities:" to a request for facts)
    names things, it states none: it is left out. None when the text has neither."""
    props = schema.get("properties", {})
    arrays = {k.lower(): k for k, v in props.items() if "array" in _types(v)}
    required = [k for k in schema.get("required", []) if k in props and "array" in _types(props[k])]
    labelled: dict[str, list[str]] = {}
    bullets: list[str] = []
    skipped = False
    for line in text.splitlines():
        label = _LABEL.match(line)
        if label and (rest := line[label.end():].strip()):
            parsed: Any = _parse(rest) if rest[:1] == "[" else _NOTHING  # 'entities: ["a", "b"]'
            found: Any = parsed[0] if parsed is not _NOTHING else None
            names = ([str(x) for x in found if isinstance(x, str | int | float)] if isinstance(found, list)
                     else re.split(r"[,;、]", rest))
            key = arrays.get(label.group(1).lower())
            if key is not None:
                labelled.setdefault(key, []).extend(p for p in (_bare(x) for x in names) if p)
            else:
                skipped = True
            continue
        bullet = _BULLET.match(line)
        if bullet and (item := _bare(bullet.group(1))):
            bullets.append(item)
    value: dict = dict(labelled)
    if bullets and len(required) == 1 and required[0] not in labelled:
        value[required[0]] = bullets
    if not value or any(k not in value for k in schema.get("required", [])):
        return None
    notes = ["markdown-list", *(["labelled-list-skipped"] if skipped else [])]
    return Reading(_coerce(value, props, notes), False, notes)


def _bare(item: str) -> str:
    item = clean_text(item).strip()
    while (m := _EMPHASIS.match(item)) is not None:
        item = m.group(2).strip()
    return item


# --- where the JSON may be: views of the reply, most likely first ---------------------------------


def _views(raw: str) -> Iterator[tuple[str, list[str], bool]]:
    """(text, repairs so far, prefer_last); prefer_last is for reasoning, where drafts come first."""
    stripped = raw.strip()
    if stripped[:1] in "{[\"'" and _parse(stripped) is not _NOTHING:
        yield raw, [], False  # one whole value: tags or fences inside its strings are content
    answer, reasoning = _split_thinking(raw)
    notes = [] if reasoning is None else ["think"]
    if answer.strip() or reasoning is None:
        yield from _framings(answer, notes, False)
        return  # the reply said something outside its reasoning: a draft in there is not its answer
    if _set_aside(reasoning):
        raise Unreadable(REJECTED)
    yield from _framings(reasoning, notes, True)  # nothing outside: the latest draft inside, if kept


def _set_aside(reasoning: str) -> bool:
    """The reasoning goes on, after its last JSON value, to doubt or drop it ("wait, the user never
    said that", "이건 틀렸다"): the draft is not the answer."""
    last = max(reasoning.rfind("}"), reasoning.rfind("]"))
    return last >= 0 and bool(_REJECTION.search(reasoning[last + 1:]))


def _split_thinking(text: str) -> tuple[str, str | None]:
    """(answer, reasoning or None). A closed block is reasoning; so is everything before an orphan
    </think> (the prompt template opened the block) and after a <think> that never closes."""
    answer, reasoning, start, opened = [], [], 0, None
    for tag in _unquoted(_THINK_TAG, text):
        if tag.group(1) and opened is None:  # orphan close
            reasoning += [*answer, text[start : tag.start()]]
            answer, start = [], tag.end()
        elif tag.group(1):
            reasoning.append(text[opened : tag.start()])
            opened, start = None, tag.end()
        elif opened is None:
            answer.append(text[start : tag.start()])
            opened = tag.end()
    if opened is not None:
        reasoning.append(text[opened:])
    else:
        answer.append(text[start:])
    found = start > 0 or opened is not None
    return "".join(answer), ("\n".join(reasoning) if found else None)


def _unquoted(pattern: re.Pattern, text: str) -> list[re.Match]:
    """Matches outside the double-quoted strings of bracketed values: a tag or a fence quoted in a
    JSON string is content, while quotes in prose around the JSON hide nothing."""
    spans, i = [], 0
    while match := _OPEN.search(text, i):
        depth, i = 0, len(text)
        for token in _DOUBLE_QUOTED.finditer(text, match.start()):
            if token.lastgroup == "quoted":
                spans.append(token.span())
                continue
            depth += (token.group() in "{[") - (token.group() in "}]")
            if depth <= 0:
                i = token.end()
                break
    return [m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in spans)]


def _framings(text: str, notes: list[str], last: bool) -> Iterator[tuple[str, list[str], bool]]:
    for pattern, name in ((_TOOL_CALL, "tool-call-tag"), (_FENCE, "fence")):
        if found := _unquoted(pattern, text):
            yield "\n".join(m.group(1) for m in found), [*notes, name], last
    yield text, notes, last


class _Labelled(list):
    """A list that prose introduced under a name ("tags: [...]")."""

    def __init__(self, label: str, items: list):
        super().__init__(items)
        self.label = label


# A field's name opening its line ("entities: [", "- tags = ["), as in YAML-ish lists of fields.
_LABEL = re.compile(r"\s*(?:[-*•]\s*|\d+[.)]\s*)?[\"']?([A-Za-z_][\w-]*)[\"']?\s*[:=]\s*")


def _read_text(text: str, schema: dict, notes: list[str], prefer_last: bool) -> Reading:
    notes = list(notes)
    values, cut = _extract_values(text, notes)
    names = {k.lower() for k in schema.get("properties", {})}
    # A labelled list counts only under one of the schema's own names ({"facts": ...} spelt as prose).
    values = [({v.label: list(v)} if v.label.lower() in names else _NOTHING) if isinstance(v, _Labelled) else v
              for v in values]
    if any(v is _NOTHING for v in values):
        _note(notes, "labelled-list-skipped")
        values = [v for v in values if v is not _NOTHING]
    if not values:
        raise Unreadable(CUT_OFF if cut else NO_JSON)
    first_error = None
    for group in [[v] for v in reversed(values)] if prefer_last else [values]:
        group_notes = list(notes)
        try:
            value = _shape(group, schema, group_notes)
        except Unreadable as exc:
            first_error = first_error or exc
            continue
        return Reading(_clean(value), "truncated" in group_notes, group_notes)
    raise first_error or Unreadable(NO_JSON)


# --- syntax: finding and parsing JSON-ish values in text -----------------------------------------


def _extract_values(text: str, notes: list[str]) -> tuple[list, bool]:
    """Every value in the text, in order; one cut off by the end of the text is closed after its
    last complete item and ends the search. Returns (values, saw a cut-off value)."""
    whole = _parse(text.strip())
    if whole is not _NOTHING:
        _note(notes, *whole[1])
        return [whole[0]], False
    values, cut, start, budget, misses = [], False, 0, _MAX_CUTS, 0
    while misses < _MAX_MISSES and (match := _OPEN.search(text, start)):
        p = match.start()
        end, cuts = _scan(text, p)
        if end is not None:
            parsed = _parse(text[p:end])
            if parsed is not _NOTHING:
                _note(notes, *parsed[1])
                label = _LABEL.fullmatch(text[text.rfind("\n", 0, p) + 1:p])
                found = parsed[0]
                if isinstance(found, list) and label:
                    # "entities: [...]" in prose is a field of something else, not the answer's list.
                    values.append(_Labelled(label.group(1), found))
                else:
                    values.append(parsed[0])
                start = end
                continue
        else:
            cut = cut or bool(re.match(r"[{\[]\s*[\"'{\[]", text[p:]))
            cuts = cuts[:budget]
            budget -= len(cuts)
            tries = (_parse(text[p:pos] + _closers(node)) for pos, node in cuts)
            parsed = next((t for t in tries if t is not _NOTHING), None)
            if parsed is not None:
                _note(notes, *parsed[1], "truncated")
                values.append(parsed[0])
                break
        misses += 1
        start = p + 1  # not a value: the real one may start inside it (prose in brackets)
    return values, cut


def _scan(text: str, start: int) -> tuple[int | None, list[tuple[int, tuple]]]:
    """Where the bracket at `start` closes (None: never), skipping strings and comments; and the
    places a cut-off value could be closed, latest first: between array elements or top-level pairs,
    never inside an object that is an array item, since half an item is not a complete item."""
    # The open brackets as a linked list (closer, inside an item object, depth, parent), so a cut
    # point can keep the stack as it was without copying it.
    top: tuple | None = None
    marks: list[tuple[int, tuple]] = []
    for token in _TOKENS.finditer(text, start):
        kind, c, pos = token.lastgroup, token.group(), token.end()
        if kind == "quoted" and not (token.group("close") or token.group("sclose")):
            break
        if kind not in ("quoted", "bracket"):
            continue
        if c in "{[":
            in_item = top is not None and (top[1] or c + top[0] == "{]")
            top = ("}" if c == "{" else "]", in_item, 1 + (top[2] if top else 0), top)
            if top[2] == 1:
                continue  # closing right after the first bracket would keep nothing
        elif c in "}]":
            assert top is not None
            top = top[3]
            if top is None:
                return pos, []
        elif c == ",":
            pos = token.start()  # cut before the comma
        if top is not None and not top[1]:
            marks.append((pos, top))
    return None, marks[::-1]


def _closers(node: tuple | None) -> str:
    closers = []
    while node is not None:
        closers.append(node[0])
        node = node[3]
    return "".join(closers)


def _parse(text: str):
    """(value, repairs) or _NOTHING: strict JSON, then JSON without comments, trailing commas and
    bare keys, then a Python literal (ast.literal_eval, never eval)."""
    try:
        return json.loads(text, strict=False), []
    except (ValueError, RecursionError):
        pass
    chunks, repairs = _tidy(text)
    as_json = "".join(c if quoted else _swap_words(c, _TO_JSON) for c, quoted in chunks)
    if as_json != "".join(c for c, _ in chunks):
        repairs.append("python-literal")
    try:
        return json.loads(as_json, strict=False), repairs
    except (ValueError, RecursionError):
        pass
    as_python = "".join(c if quoted else _swap_words(c, _TO_PYTHON) for c, quoted in chunks)
    try:
        with warnings.catch_warnings():  # "\/" is a valid JSON escape but a Python warning
            warnings.simplefilter("ignore")
            return _from_python(ast.literal_eval(as_python)), [*repairs, "python-literal"]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOTHING


def _tidy(text: str) -> tuple[list[tuple[str, bool]], list[str]]:
    """Split into (chunk, is_quoted) and drop comments, trailing commas and the quotes a JS-minded
    model left off keys, outside strings only, so "http://x" and "a,]" survive."""
    chunks: list[tuple[str, bool]] = [("", False)]
    repairs: list[str] = []
    for token in _TOKENS.finditer(text):
        if token.lastgroup == "comment":
            _note(repairs, "comment")
        elif token.lastgroup == "quoted":
            chunks.append((token.group(), True))
        elif chunks[-1][1]:
            chunks.append((token.group(), False))
        else:
            chunks[-1] = (chunks[-1][0] + token.group(), False)
    tidied = []
    for chunk, quoted in chunks:
        if not quoted:
            for pattern, repl, name in _TIDY_FIXES:
                chunk, count = pattern.subn(repl, chunk)
                _note(repairs, *([name] if count else []))
        tidied.append((chunk, quoted))
    return tidied, repairs


def _swap_words(chunk: str, words: dict[str, str]) -> str:
    return re.sub(r"\b(" + "|".join(words) + r")\b", lambda m: words[m.group(1)], chunk)


def _from_python(value):
    """Only what JSON can say; a tuple reads as a list, anything else is no reply."""
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _from_python(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_from_python(v) for v in value]
    if value is None or isinstance(value, str | int | float):
        return value
    raise ValueError(f"not JSON: {type(value).__name__}")


# --- structure: from parsed values to the arguments object ---------------------------------------


def _shape(values: list, schema: dict, notes: list[str]) -> dict:
    props, required = schema.get("properties", {}), schema.get("required", [])
    values = [_unwrap(v, schema, notes) for v in values]
    dicts = [v for v in values if isinstance(v, dict)]
    if dicts:  # lists beside objects are prose like "[1]", not the reply
        real = [d for d in dicts if not _is_echo(d, required)]
        if not real:
            raise Unreadable(ECHO)
        if len(real) > 1:
            _note(notes, "merged-objects")
        obj = _merge([_coerce(_rename(d, schema, notes), props, notes) for d in real])
    else:
        lists = [v for v in values if isinstance(v, list)]
        arrays = [k for k in required if "array" in _types(props.get(k, {}))]
        if not lists:
            raise Unreadable(f"the reply is {_KINDS.get(type(values[0]), 'a number')}, not an object")
        if len(arrays) != 1:
            raise Unreadable("the reply is a list, not an object")
        _note(notes, "wrapped-array")
        obj = _coerce({arrays[0]: [x for lst in lists for x in lst]}, props, notes)
    for key in required:
        if key not in obj:
            cut = "truncated" in notes
            raise Unreadable(f'the reply was cut off before "{key}"' if cut else f'the reply has no "{key}"')
    return obj


def _unwrap(value, schema: dict, notes: list[str]):
    """Peel double encoding and tool-call wrappers until the arguments object shows."""
    required = schema.get("required", [])
    for _ in range(_MAX_LEVELS):
        if isinstance(value, str):
            inner, label = _decode(value, notes), "double-encoded"
        elif isinstance(value, dict) and not any(k in value for k in required):
            inner, label = _arguments(value, schema, notes), "arguments-wrapper"
        elif isinstance(value, list) and value and all(_is_call_or_args(x, schema) for x in value):
            parts = [_unwrap(x, schema, notes) for x in value]
            if not all(isinstance(p, dict) for p in parts):
                return value
            if len(parts) > 1:
                _note(notes, "merged-objects")
            return _merge(parts)
        else:
            return value
        if inner is _NOTHING:
            return value
        _note(notes, label)
        value = inner
    return value


def _arguments(d: dict, schema: dict, notes: list[str]):
    props = schema.get("properties", {})
    if isinstance(d.get("function"), dict) and "function" not in props:
        return d["function"]
    if isinstance(d.get("tool_calls"), list) and d["tool_calls"] and "tool_calls" not in props:
        return d["tool_calls"]
    for key in ("arguments", "parameters", "args", "input"):
        if key in d and key not in props and (key == "arguments" or "name" in d):
            # OpenAI sends arguments as a JSON string: that is the wrapper, not double encoding.
            decoded = _decode(d[key], notes) if isinstance(d[key], str) else _NOTHING
            return d[key] if decoded is _NOTHING else decoded
    return _NOTHING


def _is_call_or_args(x, schema: dict) -> bool:
    if not isinstance(x, dict):
        return False
    return any(k in x for k in schema.get("required", [])) or _arguments(x, schema, []) is not _NOTHING


def _decode(text: str, notes: list[str]):
    stripped = text.strip()
    parsed = _parse(stripped) if stripped[:1] in ("{", "[", '"', "'") else _NOTHING
    if parsed is _NOTHING:
        return _NOTHING
    _note(notes, *parsed[1])
    return parsed[0]


def _is_echo(d: dict, required: list[str]) -> bool:
    if any(k in d and not _looks_like_schema(d[k]) for k in required):
        return False
    return _looks_like_schema(d) or any(k in d for k in required)


def _looks_like_schema(v) -> bool:
    if not isinstance(v, dict):
        return False
    if "$schema" in v or isinstance(v.get("properties"), dict):
        return True
    return all(t in _JSON_TYPES for t in _types(v)) and set(v) <= _SCHEMA_WORDS


def _rename(d: dict, schema: dict, notes: list[str]) -> dict:
    """A required list under another name (`memories` for `facts`) is taken only when it is the one
    unknown key holding a list of the right kind; with two, picking one would be a guess."""
    props = schema.get("properties", {})
    for key in props:
        if key not in d:  # "Facts" for "facts": the same key in another case
            same = [k for k in d if isinstance(k, str) and k.strip().lower() == key.lower()]
            if len(same) == 1:
                d = {(key if k == same[0] else k): v for k, v in d.items()}
                _note(notes, "key-case")
    for key in schema.get("required", []):
        if key in d or "array" not in _types(props.get(key, {})):
            continue
        kind = _item_kind(props[key])
        # An object item with a text field ({"text", "category"}) is often given as a bare string.
        fits = (str, dict) if kind == "string" or (kind == "object" and _has_text_field(props[key])) \
            else {"object": (dict,)}.get(kind, (str, int, float))
        unknown = {k: v for k, v in d.items() if k not in props and isinstance(v, list)
                   and str(k).strip().lower() not in _NOT_STATEMENTS}
        others = [k for k, v in unknown.items() if all(isinstance(x, fits) for x in v)]
        if len(others) == 1:
            d = {(key if k == others[0] else k): v for k, v in d.items()}
            _note(notes, "renamed-key")
    return d


def _coerce(obj: dict, props: dict, notes: list[str]) -> dict:
    """Array properties become lists of the asked kind of item; other values are left as they are."""
    out = dict(obj)
    for key, value in obj.items():
        prop = props.get(key)
        if isinstance(prop, dict) and "array" in _types(prop):
            out[key] = _items(key, _as_list(value, notes), prop, notes)
    return out


def _as_list(value, notes: list[str]) -> list:
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        inner = _decode(value, notes)
        if isinstance(inner, list):
            _note(notes, "double-encoded")
            return inner
        _note(notes, "string-as-list")
        return [value] if value.strip() else []
    if value is None:
        _note(notes, "null-as-list")
        return []
    _note(notes, "object-as-list" if isinstance(value, dict) else "scalar-as-list")
    return [value]


def _items(key: str, items: list, prop: dict, notes: list[str]) -> list:
    kind = _item_kind(prop)
    out = []
    for item in items:
        if kind == "string" and isinstance(item, dict):
            text = next((item[k] for k in _TEXT_KEYS if isinstance(item.get(k), str)), None)
            _note(notes, "dropped-item" if text is None else "item-objects")
            out += [] if text is None else [text]
            continue
        if kind == "object" and isinstance(item, str):
            decoded = _decode(item, notes)
            if isinstance(decoded, dict):
                _note(notes, "double-encoded")
                item = decoded
        if kind == "object" and isinstance(item, dict):
            item = _coerce(item, prop.get("items", {}).get("properties", {}), notes)
        out.append(item)
    if items and not out:  # every item unusable is not "the model found nothing"
        raise Unreadable(f'no item of "{key}" holds any text')
    return out


def _merge(objs: list[dict]) -> dict:
    """List values are concatenated; any other key keeps the first value given."""
    out: dict = {}
    for obj in objs:
        for key, value in obj.items():
            if key not in out:
                out[key] = value
            elif isinstance(out[key], list) and isinstance(value, list):
                out[key] = out[key] + value
    return out


def _types(schema: dict) -> list:
    t = schema.get("type")
    return t if isinstance(t, list) else [t]


def _item_kind(prop: dict) -> str:
    items = prop["items"] if isinstance(prop.get("items"), dict) else {}
    if "object" in _types(items) or "properties" in items:
        return "object"
    return "string" if "string" in _types(items) else "other"


def _has_text_field(prop: dict) -> bool:
    fields = (prop.get("items") or {}).get("properties", {})
    return any("string" in _types(fields.get(k, {})) for k in _TEXT_KEYS if k in fields)


def _note(notes: list[str], *names: str) -> None:
    notes.extend(name for name in dict.fromkeys(names) if name not in notes)


def _clean(value):
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k): _clean(v) for k, v in value.items()}
    return value
