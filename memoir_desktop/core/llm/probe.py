"""Ask a server once how it answers best, and remember it per base URL + model.

The probe sends one tiny structured request per mode, best first (modes.py), and keeps the
first mode whose reply carries the value; a mode the server refuses, in whatever status code, is
passed over (errors.refusal). It runs on the first structured call to an endpoint, and again when
the base URL or the model changes. A mode the server later refuses (a model swapped behind the same
name) is replaced by the next one down at that call (client.py); unusable replies change nothing
either (they are asked again, then fail their job with the raw reply kept): probing a server that
answers finds the same mode again. The cache is a small JSON file in the data folder: it holds
mode names and times, never a prompt or a key.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memoir_desktop.core.llm.modes import MODES

log = logging.getLogger(__name__)

PROBE_TOOL = "memoir_check"
PROBE_SCHEMA = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
PROBE_MESSAGES = [
    {"role": "system", "content": "You are a test of structured replies. Follow the instruction exactly."},
    {"role": "user", "content": f"Call {PROBE_TOOL} with word set to \"memoir\"."},
]

# The connection test's speed measurement (client.measure_speed): a passage to read and a count to
# write, no journal text. The passage makes reading the prompt take a measurable time.
SPEED_TOKENS = 48
SPEED_MESSAGES = [
    {"role": "system", "content": "You are a speed test. " + " ".join(
        f"Rule {n}: read every line of this passage before you answer, and answer only what the last "
        f"message asks, in plain words, with no preamble." for n in range(1, 13))},
    {"role": "user", "content": "Write the numbers from one to forty in words, separated by commas."},
]


@dataclass
class Speed:
    first_token_s: float  # from sending to the first token: connecting, queueing, reading the prompt
    tokens_per_s: float | None  # writing after the first token (None: the server said nothing countable)
    prompt_tokens: int  # about how many tokens the measurement's prompt is
    tokens: int  # tokens written


def endpoint_key(base_url: str | None, model: str) -> str:
    return f"{(base_url or 'https://api.openai.com/v1').rstrip('/')}|{model}"


@dataclass
class Capabilities:
    mode: str
    probed_at: str = ""
    tried: dict[str, str] = field(default_factory=dict)  # mode -> "ok" | why it was not used
    # stage -> its steps in a row whose reply was the instruction's own example shape, or that were
    # not asked because of that (pipeline/update.py)
    echoes: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"mode": self.mode, "probed_at": self.probed_at, "tried": self.tried, "echoes": self.echoes}


class ProbeCache:
    """Modes per endpoint, in `path` (None: memory only). Thread-safe; writes are atomic."""

    def __init__(self, path: Path | None):
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, dict] = self._load()

    def _load(self) -> dict:
        if self.path is None or not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # a damaged cache only costs one probe
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> Capabilities | None:
        with self._lock:
            row = self._data.get(key)
        if not isinstance(row, dict) or row.get("mode") not in MODES:
            return None
        echoes = row.get("echoes")
        return Capabilities(row["mode"], str(row.get("probed_at", "")), dict(row.get("tried") or {}),
                            {str(k): int(v) for k, v in echoes.items() if isinstance(v, int)}
                            if isinstance(echoes, dict) else {})

    def put(self, key: str, caps: Capabilities) -> None:
        with self._lock:
            self._data[key] = caps.to_dict()
            self._save()

    def forget(self, key: str) -> None:
        with self._lock:
            if self._data.pop(key, None) is not None:
                self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._data, indent=1), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:  # the cache is an optimisation: a read-only disk costs a probe per run
            log.warning("could not save the LLM mode cache: %s", exc.__class__.__name__)


def now_iso() -> str:
    return datetime.now().replace(microsecond=0).isoformat()
