"""`--smoke`: store and search one memory in a throw-away home, without an LLM or a window.

Proves an installed (or frozen) app has what it needs at run time: the database, the
embedded vector index, the embedding model and the Korean analyser. No Qt here.
"""

from __future__ import annotations

import json
import sys
import tempfile


def _progress(done: int, total: int, _shown=[-1]) -> None:  # noqa: B006 (remembers the last 10 MB step)
    step = done // 10_000_000
    if step != _shown[0] or done == total:
        _shown[0] = step
        print(f"downloading the search model: {done // 1_000_000}/{total // 1_000_000} MB", file=sys.stderr,
              flush=True)


def run_smoke() -> int:
    from memoir_desktop.core import Memoir, config, model_files

    with tempfile.TemporaryDirectory(prefix="memoir-smoke-") as home:
        # As the app does at start: fetch the model if this build does not carry it.
        problem = model_files.ensure(config.load_settings(config.resolve_home(home)).embed_model,
                                     progress=_progress)
        if problem:
            print(f"search model: {problem}", file=sys.stderr)
        mem = Memoir.open(home)
        try:
            added = mem.add("나는 아침마다 산책을 하고 커피를 마신다", infer=False)["results"][0]
            hits = mem.search("커피")["results"]
            found = any(hit["id"] == added["id"] for hit in hits)
            print(json.dumps({"smoke": "ok" if found else "failed", "stored": added["memory"],
                              "hits": len(hits), "embedder": mem.status()["embedder"]["active"]},
                             ensure_ascii=False))
        finally:
            mem.close()
    return 0 if found else 1
