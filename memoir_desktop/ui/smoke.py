"""`--smoke`: store and search one memory in a throw-away home, without an LLM or a window.

Proves an installed (or frozen) app has what it needs at run time: the database, the
embedded vector index, the embedding model and the Korean analyser. No Qt here.
"""

from __future__ import annotations

import json
import tempfile


def run_smoke() -> int:
    from memoir_desktop.core import Memoir

    with tempfile.TemporaryDirectory(prefix="memoir-smoke-") as home:
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
