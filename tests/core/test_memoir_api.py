"""`Memoir` is the one public entry (README's Python API, the CLI, mem0's names): reshaping the
core behind it must not take a method away or change how it is called. `memoir_api.json` is the
API as it stood; a method may be added, none removed or re-signed."""

import inspect
import json
from pathlib import Path

from memoir_desktop.core import Memoir

API = json.loads((Path(__file__).parent / "memoir_api.json").read_text("utf-8"))


def _now(name: str) -> str | None:
    if not hasattr(Memoir, name):
        return None
    if isinstance(inspect.getattr_static(Memoir, name), property):
        return "property"
    return str(inspect.signature(getattr(Memoir, name)))


def test_every_public_method_is_still_there_with_its_signature():
    changed = {name: (was, _now(name)) for name, was in API.items() if _now(name) != was}
    assert changed == {}, "\n".join(f"{n}: was {w}, now {x}" for n, (w, x) in changed.items())


def test_mem0s_names_are_part_of_it():
    assert {"add", "search", "get", "get_all", "update", "delete", "history"} <= set(API)
