"""Typed tool arguments: what each tool call must give back, with the vocabulary models use.

The reply reader (reader.py) repairs the *shape* of a reply; these models then coerce the words
and scalars that real models get slightly wrong: mem0's own "NONE" for NOOP (models trained on its
prompts use it), lowercase events, ids as strings ("0", "[0]", "id 0"), facts given as objects.
An operation item that still makes no sense is dropped, not the whole reply: the write path adds
every fact no usable operation covers, so a bad item can cost a decision but never a fact.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

log = logging.getLogger(__name__)

_EVENT_WORDS = {
    "ADD": "ADD", "INSERT": "ADD", "CREATE": "ADD", "NEW": "ADD", "APPEND": "ADD",
    "UPDATE": "UPDATE", "MODIFY": "UPDATE", "EDIT": "UPDATE", "MERGE": "UPDATE", "REPLACE": "UPDATE",
    "CHANGE": "UPDATE", "REFINE": "UPDATE",
    "DELETE": "DELETE", "REMOVE": "DELETE", "INVALIDATE": "DELETE", "FORGET": "DELETE", "OBSOLETE": "DELETE",
    "NOOP": "NOOP", "NONE": "NOOP", "NO_OP": "NOOP", "NO-OP": "NOOP", "NO OP": "NOOP", "NOTHING": "NOOP",
    "KEEP": "NOOP", "SKIP": "NOOP", "IGNORE": "NOOP", "UNCHANGED": "NOOP", "EXISTS": "NOOP", "DUPLICATE": "NOOP",
}
_INT = re.compile(r"-?\d+")
_TEXT_KEYS = ("fact", "text", "content", "memory", "value", "statement", "description", "sentence", "detail",
              "summary", "note")
# Fields that describe a fact rather than state it: never read as its text.
_META_KEYS = frozenset({"category", "type", "kind", "id", "confidence", "importance", "date", "time", "timestamp",
                        "source", "tags", "mood", "language", "lang", "score", "priority"})


def as_int(value: Any) -> int | None:
    """3, 3.0, "3", "[3]", "id 3", "#3" -> 3; anything else (a UUID, a word, True) -> None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        found = _INT.findall(value)
        if len(found) == 1 and len(value.strip()) <= len(found[0]) + 6:  # "[3]", "id 3", not a sentence
            return int(found[0])
    return None


def as_text(value: Any) -> str | None:
    """The text of an item: a string; a number; an object's text field in any case ("Text",
    "description"…) or its one string field that is not metadata; a list holding one text."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        lowered = {str(k).strip().lower(): v for k, v in value.items()}
        for key in _TEXT_KEYS:
            if isinstance(lowered.get(key), str):
                return lowered[key]
        strings = [v for k, v in lowered.items() if isinstance(v, str) and v.strip() and k not in _META_KEYS]
        return strings[0] if len(strings) == 1 else None
    if isinstance(value, list):
        texts = [t for t in (as_text(v) for v in value) if t and t.strip()]
        return " ".join(texts) if texts and all(isinstance(v, (str, dict, list)) for v in value) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")
    truncated: bool = False  # set by the client: the reply was cut off, its complete items kept


class Fact(_Args):
    text: str
    category: str | None = None  # one of prompts.FACT_CATEGORIES, or None (rules decide later)

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, raw):
        text = as_text(raw)
        if text is None:
            raise ValueError("a fact is text")
        if isinstance(raw, dict):
            raw = {str(k).strip().lower(): v for k, v in raw.items()}
        category = raw.get("category") if isinstance(raw, dict) else None
        category = str(category).strip().lower() if isinstance(category, str) and category.strip() else None
        return {"text": " ".join(text.split()), "category": category}


class FactsArgs(_Args):
    facts: list[Fact]
    mood: str | None = None  # asked only when the user turned mood notes on (prompts.MOODS)

    @field_validator("mood", mode="before")
    @classmethod
    def _mood(cls, value):
        return value.strip().lower() if isinstance(value, str) and value.strip() else None

    @field_validator("facts", mode="before")
    @classmethod
    def _texts(cls, value):
        if isinstance(value, (str, dict)):
            value = [value]
        if not isinstance(value, list):
            raise ValueError("facts must be a list")
        facts = [f for f in _readable_items(value, Fact) if f.text]
        if value and not facts:  # items that say nothing readable are not "the model found nothing"
            raise ValueError("no fact in the reply could be read")
        return facts


class Operation(_Args):
    fact: int
    event: Literal["ADD", "UPDATE", "DELETE", "NOOP"]
    id: int | None = None
    # True when the model named a memory we could not read as an integer (a UUID, a word):
    # such an operation is about no memory it was shown.
    id_unreadable: bool = False
    text: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, raw):
        if not isinstance(raw, dict):
            raise ValueError("an operation is an object")
        raw = dict(raw)
        event = str(raw.get("event") or raw.get("action") or raw.get("operation") or raw.get("op") or "")
        word = " ".join(event.strip(" \t\n\"'.:;!`").upper().split())
        raw["event"] = _EVENT_WORDS.get(word, word)
        fact = raw.get("fact", raw.get("fact_index", raw.get("index", 0)))
        raw["fact"] = as_int(fact)
        if raw["fact"] is None:
            raise ValueError(f"fact is not an index: {fact!r}")
        mid = raw.get("id", raw.get("memory_id"))
        raw["id"] = as_int(mid)
        raw["id_unreadable"] = mid not in (None, "", "null", "None") and raw["id"] is None
        text = raw.get("text", raw.get("memory", raw.get("new_text")))
        raw["text"] = as_text(text) if text is not None else None
        return raw


class OperationsArgs(_Args):
    operations: list[Operation]
    dropped: int = 0  # items that were not operations at all

    @model_validator(mode="before")
    @classmethod
    def _items(cls, raw):
        if not isinstance(raw, dict) or not isinstance(raw.get("operations"), list):
            raise ValueError("expected {'operations': [...]}")
        good, dropped = [], 0
        for item in raw["operations"]:
            try:
                good.append(Operation.model_validate(item))
            except ValidationError as exc:
                dropped += 1
                log.warning("update: operation item dropped (%s)", exc.errors()[0].get("msg", "invalid"))
        return {"operations": good, "dropped": dropped}


class Entity(_Args):
    name: str
    type: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, raw):
        if isinstance(raw, str):
            return {"name": raw}
        if isinstance(raw, dict) and not isinstance(raw.get("name"), str):
            raw = {**raw, "name": as_text(raw.get("entity")) or as_text(raw)}
        return raw


class EntitiesArgs(_Args):
    entities: list[Entity]

    @field_validator("entities", mode="before")
    @classmethod
    def _keep_readable(cls, value):
        return _readable_items(value, Entity)


class Relation(_Args):
    source: str
    relation: str
    destination: str

    @model_validator(mode="before")
    @classmethod
    def _names(cls, raw):
        if isinstance(raw, (list, tuple)) and len(raw) == 3:
            return dict(zip(("source", "relation", "destination"), raw))
        if isinstance(raw, dict):
            raw = dict(raw)
            raw.setdefault("destination", raw.get("target", raw.get("object")))
            raw.setdefault("source", raw.get("subject"))
            raw.setdefault("relation", raw.get("relationship", raw.get("predicate")))
        return raw


class RelationsArgs(_Args):
    relations: list[Relation]

    @field_validator("relations", mode="before")
    @classmethod
    def _keep_readable(cls, value):
        return _readable_items(value, Relation)


class ObsoleteArgs(_Args):
    obsolete: list[int]

    @field_validator("obsolete", mode="before")
    @classmethod
    def _ints(cls, value):
        if not isinstance(value, list):
            value = [value]
        return [i for i in (as_int(v) for v in value) if i is not None]


class ConsolidateArgs(_Args):
    merge: bool
    text: str = ""

    @field_validator("merge", mode="before")
    @classmethod
    def _yes_no(cls, value):
        if isinstance(value, str) and value.strip().lower() in ("yes", "true", "1"):
            return True
        if isinstance(value, str) and value.strip().lower() in ("no", "false", "0"):
            return False
        return value


def _readable_items(value, model: type[BaseModel]) -> list:
    if not isinstance(value, list):
        value = [value]
    out = []
    for item in value:
        try:
            out.append(model.model_validate(item))
        except ValidationError:
            log.warning("%s item dropped", model.__name__)
    return out


_DIGITS = re.compile(r"\d+")
_NUMBER_KEYS = ("number", "index", "n", "id", "memory", "i")


class RerankArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")
    relevant: list[int]
    truncated: bool = False  # set by the client (llm/args.py): the reply was cut off

    @field_validator("relevant", mode="before")
    @classmethod
    def _numbers(cls, value):
        # Range and repeats are the caller's business (only it knows n); here only "what number
        # did the model mean": "3", "[3]", 3.0, {"number": 3}, or "3, 7" in one string.
        if not isinstance(value, list):
            value = [] if value is None else [value]
        out: list[int] = []
        for item in value:
            if isinstance(item, dict):
                item = next((item[k] for k in _NUMBER_KEYS if as_int(item.get(k)) is not None), None)
            n = as_int(item)
            if n is not None:
                out.append(n)
            elif isinstance(item, str):
                out += [int(d) for d in _DIGITS.findall(item)]
        return out
