"""Fact search around the query embedding: what runs beside it, what it costs after it.

Overlapping the query embedding with the lexical side (a worker thread; the C engine releases
the GIL) was measured on the 2-core benchmark machine and not kept: the embedding already keeps
both cores busy, so the overlapped Python work and the embedding slowed each other by as much as
they overlapped (paired median +0.01 / +0.09 ms), and a fresh thread per query cost 2-3 ms more
(a new OpenMP team each time). What was kept: the rows of the candidates that can fill the second
stage's pool are read in one query instead of one per batch (search/facts.py).
"""

from datetime import datetime

import pytest

from memoir_desktop.core.search import neighbours
from memoir_desktop.core.search.rerank import POOL

NOW = datetime(2026, 5, 4, 9, 0)


def _spy_on_reads(mem) -> list[list[str]]:
    calls: list[list[str]] = []
    real = mem.store.get_many

    def get_many(ids):
        ids = list(ids)
        calls.append(ids)
        return real(ids)

    mem.store.get_many = get_many
    return calls


def test_the_rows_that_can_fill_the_pool_are_read_in_one_query(mem):
    mem.add([f"차 메모 {i}: 아침에 녹차를 마셨다" for i in range(45)], infer=False)
    calls = _spy_on_reads(mem)
    hits = mem.search("녹차 메모", limit=10, now=NOW)["results"]
    assert len(hits) == 10
    # Korean with the default model: the second stage reorders a pool of 30, read in batches of
    # 20; two batches can fill it, so both come from SQLite at once (once each, before). The lines
    # of one add call are one entry's: its neighbours (search/neighbours.py) that can move up are
    # read in one more query, never a row read already.
    assert len(calls[0]) >= POOL and len(calls) <= 2
    for more in calls[1:]:
        assert not set(more) & set(calls[0]) and len(more) <= neighbours.SEEDS * neighbours.PER


def test_candidates_past_the_first_read_are_still_read_batch_by_batch(mem):
    # A filter that keeps one candidate in four: the pool cannot fill from the first read.
    mem.add([f"차 메모 {i}: 아침에 녹차를 마셨다" for i in range(0, 60, 4)], infer=False, metadata={"kind": "wanted"})
    mem.add([f"차 메모 {i}: 아침에 녹차를 마셨다" for i in range(60) if i % 4], infer=False,
            metadata={"kind": "noise"})
    calls = _spy_on_reads(mem)
    hits = mem.search("녹차 메모", limit=3, filters={"kind": "wanted"}, now=NOW)["results"]
    assert len(hits) == 3 and all(h["metadata"]["kind"] == "wanted" for h in hits)
    assert len(calls[0]) == POOL and len(calls) > 1 and all(len(ids) <= 10 for ids in calls[1:])
    read = [i for ids in calls for i in ids]
    assert len(read) == len(set(read))  # no candidate's row is read twice


def test_an_embedder_that_raises_leaves_lexical_results_and_no_vector(mem):
    mem.add(["아침에 녹차를 마셨다", "저녁에 산책을 했다", "I drank green tea in the morning"], infer=False)
    asked = []

    def broken(text):
        asked.append(text)
        raise RuntimeError("embedding engine gone")

    mem.store.embedder.embed_query = broken
    q = mem.retriever.read_query("녹차 마셨어?", NOW)
    hits = mem.retriever.search("me", q, limit=5)
    assert [h["memory"] for h in hits][:1] == ["아침에 녹차를 마셨다"]
    assert all("dense" not in h["explain"] and "lexical" in h["explain"] for h in hits)
    assert q.vector() is None and q.vector_error == "RuntimeError"
    assert asked == ["녹차 마셨어?"]  # asked once: the failure is kept, not retried per source


@pytest.mark.parametrize("limit", [1, 10, 14, 15, 40])
def test_every_limit_reads_each_candidate_once_and_fills_it(mem, limit):
    mem.add([f"차 메모 {i}: 아침에 녹차를 마셨다" for i in range(60)], infer=False)
    calls = _spy_on_reads(mem)
    hits = mem.search("녹차 메모", limit=limit, now=NOW)["results"]
    assert len(hits) == limit
    read = [i for ids in calls for i in ids]
    assert len(read) == len(set(read))
