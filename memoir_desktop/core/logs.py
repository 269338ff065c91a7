"""Logging to the platform's log dir with rotation: the one setup of the CLI and the app.

Rule for every logger in memoir: no journal or memory text at INFO or above — log ids,
counts, stages and exception class names. Text may appear only at DEBUG.

The HTTP clients are not ours to word: at INFO they log every request with its URL ("HTTP
Request: POST http://host/v1/chat/completions"), the endpoint the user chose, with its query
string. Their loggers are set to WARNING, and each handler drops their records below WARNING as
well, since a library may lower its own level later (openai does with OPENAI_LOG) and a new
client family (openai now speaks through httpx2) is one name away.
"""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from memoir_desktop.core.config import log_dir
from memoir_desktop.core.keys.private_files import private_folder

HTTP_LOGGERS = ("httpx", "httpx2", "httpcore", "openai", "urllib3", "h2", "hpack")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_configured = False


class QuietHttp(logging.Filter):
    """Passes an HTTP client's record only from WARNING up."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        return not any(record.name == n or record.name.startswith(n + ".") for n in HTTP_LOGGERS)


def setup_logging(level: int = logging.INFO, *, name: str = "memoir.log", backups: int = 5,
                  console: bool = False) -> str | None:
    """Log to `name` in the log folder, and to stderr too with `console` (the app). Returns the file's
    path. Without a writable log folder: OSError, or with `console` the console alone (None)."""
    global _configured
    path: Path | None = log_dir() / name
    if _configured:
        return str(path)
    handlers: list[logging.Handler] = [logging.StreamHandler()] if console else []
    try:
        private_folder(path.parent)
        handlers.append(logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=backups,
                                                             encoding="utf-8"))
    except OSError:
        if not console:
            raise
        path = None  # no writable log folder: the console is enough
    root = logging.getLogger()
    for handler in handlers:
        handler.setFormatter(logging.Formatter(FORMAT))
        handler.addFilter(QuietHttp())
        root.addHandler(handler)
    root.setLevel(level)
    for noisy in HTTP_LOGGERS:
        logging.getLogger(noisy).setLevel(logging.WARNING)
    _configured = True
    return str(path) if path else None
