"""Logging to the platform's log dir with rotation.

Rule for every logger in memoir: no journal or memory text at INFO or above — log ids,
counts, stages and exception class names. Text may appear only at DEBUG.
"""

from __future__ import annotations

import logging
import logging.handlers

from memoir_desktop.core.config import log_dir

_configured = False


def setup_logging(level: int = logging.INFO) -> str:
    global _configured
    d = log_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / "memoir.log"
    if not _configured:
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=5, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(level)
        # Third-party HTTP logs at INFO include request URLs with query strings; keep them quiet.
        for noisy in ("httpx", "httpcore", "openai", "urllib3"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
        _configured = True
    return str(path)
