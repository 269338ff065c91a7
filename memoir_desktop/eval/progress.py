"""A one-line stderr progress indicator with counts and an ETA (no dependency).

On a terminal the line is redrawn in place; when stderr is a file or a pipe (CI logs) a
plain line is written at most every `log_every_s` seconds and once at the end, so logs stay
short.
"""

from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    def __init__(self, total: int, label: str = "", *, stream=None, min_interval_s: float = 0.2,
                 log_every_s: float = 15.0, enabled: bool = True):
        self.total = max(0, int(total))
        self.label = label
        self.done = 0
        self.note = ""
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self._start = time.monotonic()
        self._last_draw = 0.0
        self._min_interval = min_interval_s
        self._log_every = log_every_s
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._closed = False

    # -- public -------------------------------------------------------------------------

    def update(self, n: int = 1, note: str | None = None) -> None:
        self.done += n
        if note is not None:
            self.note = note
        self._draw()

    def set_note(self, note: str) -> None:
        self.note = note
        self._draw()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._draw(force=True, final=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._start

    def eta(self) -> float | None:
        """Seconds left at the average rate so far; None before the first unit is done."""
        if self.done <= 0 or self.total <= 0:
            return None
        rate = self.elapsed / self.done
        return max(0.0, rate * (self.total - self.done))

    def line(self) -> str:
        pct = f" {100 * self.done / self.total:3.0f}%" if self.total else ""
        eta = self.eta()
        parts = [f"{self.label} {self.done}/{self.total}{pct}".strip(), f"elapsed {_clock(self.elapsed)}"]
        if eta is not None and self.done < self.total:
            parts.append(f"ETA {_clock(eta)}")
        if self.note:
            parts.append(self.note)
        return "  ".join(parts)

    # -- internals ----------------------------------------------------------------------

    def _draw(self, force: bool = False, final: bool = False) -> None:
        if not self.enabled:
            return
        t = time.monotonic()
        interval = self._min_interval if self._tty else self._log_every
        if not force and t - self._last_draw < interval:
            return
        self._last_draw = t
        text = self.line()
        try:
            if self._tty:
                self.stream.write("\r\x1b[2K" + text[:200] + ("\n" if final else ""))
            else:
                self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed stream must never stop an evaluation
            self.enabled = False
