"""The public API is `Memoir`'s parts (`mem.journal`, `mem.memories`, …) and mem0's names on `Memoir`
itself (README's Python API, the CLI, the MCP server and the screens use them). Reshaping the core
behind them must not take a method away or change how it is called: `memoir_api.json` is the API as it
stands; a method may be added, none removed or re-signed. And `Memoir` forwards nothing else: a second
name for a part's operation is what the parts replaced."""

import inspect
import json
from pathlib import Path

import pytest

from memoir_desktop.core import Memoir

API = json.loads((Path(__file__).parent / "memoir_api.json").read_text("utf-8"))
MEM0 = {"add", "search", "get", "get_all", "update", "delete", "history"}
LIFECYCLE = {"open", "join", "close", "reconfigure", "reconcile", "outside_changes", "read_only"}
PARTS = ("journal", "search_field", "memories", "companion", "reflection", "archive", "keys", "connection", "models",
         "jobs", "sync", "apps", "graph", "metrics")


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    m = Memoir.open(tmp_path_factory.mktemp("api") / "home", encrypt=False, reconcile=False)
    yield m
    m.close()


def _signatures(cls) -> dict[str, str]:
    out = {}
    for name, value in inspect.getmembers(cls):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(cls, name)
        if isinstance(static, property):
            out[name] = "property"
        elif callable(value):
            out[name] = str(inspect.signature(value))
    return out


def current(mem) -> dict[str, dict[str, str]]:
    api = {"Memoir": {n: s for n, s in _signatures(Memoir).items() if n in MEM0 | LIFECYCLE}}
    for part in PARTS:
        api[part] = _signatures(type(getattr(mem, part)))
    return api


def test_every_public_method_is_still_there_with_its_signature(mem):
    now = current(mem)
    changed = [f"{part}.{name}: was {was}, now {now.get(part, {}).get(name)}"
               for part, methods in API.items() for name, was in methods.items()
               if now.get(part, {}).get(name) != was]
    assert changed == [], "\n".join(changed)


def test_memoir_forwards_nothing_but_mem0s_names():
    public = {n for n, v in inspect.getmembers(Memoir) if not n.startswith("_") and callable(v)}
    assert public <= MEM0 | LIFECYCLE, sorted(public - MEM0 - LIFECYCLE)
    assert MEM0 <= set(API["Memoir"])

