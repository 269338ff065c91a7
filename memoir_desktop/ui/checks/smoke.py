"""`--smoke`: store and search one memory in a throw-away home, without an LLM or a window.

Proves an installed (or frozen) app has what it needs at run time: the encrypted database
(SQLCipher, Argon2id), the vector index, the embedding model and the Korean analyser. The
throw-away journal is encrypted under MEMOIR_PASSPHRASE or a random passphrase of this run (no
keyring needed), closed, opened again, and its files are checked for the stored text. No Qt here.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import tempfile
from pathlib import Path

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.search_models import model_files


def _progress(done: int, total: int, _shown=[-1]) -> None:  # noqa: B006 (remembers the last 10 MB step)
    step = done // 10_000_000
    if step != _shown[0] or done == total:
        _shown[0] = step
        print(f"downloading the search model: {done // 1_000_000}/{total // 1_000_000} MB", file=sys.stderr,
              flush=True)


def run_smoke() -> int:
    with tempfile.TemporaryDirectory(prefix="memoir-smoke-") as home:
        # As the app does at start: fetch the model if this build does not carry it.
        problem = model_files.ensure(config.load_settings(config.resolve_home(home)).embed_model,
                                     progress=_progress)
        if problem:
            print(f"search model: {problem}", file=sys.stderr)
        passphrase = os.environ.get("MEMOIR_PASSPHRASE") or secrets.token_urlsafe(16)
        text = "나는 아침마다 산책을 하고 커피를 마신다"
        with Memoir.open(home, passphrase=passphrase) as mem:
            added = mem.add(text, infer=False)["results"][0]
        mem = Memoir.open(home, passphrase=passphrase)  # read back from the encrypted files
        try:
            hits = mem.search("커피")["results"]
            found = any(hit["id"] == added["id"] for hit in hits)
            report = {"smoke": "ok" if found else "failed", "stored": added["memory"], "hits": len(hits),
                      "embedder": mem.jobs.status()["embedder"]["active"], "encrypted": mem.keys.encrypted}
        finally:
            mem.close()
        needles = (text.encode("utf-8"), text.encode("utf-16-le"))
        report["plaintext_files"] = sorted(str(p.relative_to(home)) for p in Path(home).rglob("*")
                                           if p.is_file() and any(n in p.read_bytes() for n in needles))
        print(json.dumps(report, ensure_ascii=False))
    return 0 if found else 1
