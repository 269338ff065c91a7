"""The companion on a real small model (Qwen2.5 0.5B on llama.cpp): with a handful of memories, a question no
memory answers gets an honest answer in the question's language, never another memory dressed up as the
answer or an invented fact; a question a memory answers gets that memory's fact."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.companion import grounding
from memoir_desktop.core.script import language_of

pytestmark = [pytest.mark.real_llm, pytest.mark.timeout(1800)]

MEMORIES = ["강아지 이름은 초코다", "서울 마포구로 이사했다", "회사는 판교에 있다", "매주 토요일 아침에 수영을 한다",
            "새우 알레르기가 있다"]
NOW = datetime(2026, 3, 1, 21)
UNANSWERED = ["내 고양이 이름이 뭐야?", "내 차는 무슨 차야?", "우리 엄마 생일 언제야?", "내 여동생은 어디 살아?"]
ANSWERED = {"내 강아지 이름이 뭐야?": "초코", "나 어디로 이사했지?": "마포", "회사가 어디 있어?": "판교"}


@pytest.fixture(scope="module")
def journal(qwen_server, tmp_path_factory):
    with Memoir.open(tmp_path_factory.mktemp("companion") / "home", llm_base_url=qwen_server.url,
                     llm_model="local") as m:
        for text in MEMORIES:
            m.add(text, infer=False, timestamp=datetime(2026, 1, 10, 21))
        yield m


@pytest.mark.parametrize("question", UNANSWERED)
def test_a_question_no_memory_answers_gets_an_honest_answer_in_its_language(journal, question):
    start = time.perf_counter()
    out = journal.companion.chat(question, timestamp=NOW, remember=False)
    print(f"\n{question} -> {out['reply']!r} ({time.perf_counter() - start:.1f} s, {out.get('grounded')})")
    assert out["reply"] == grounding.NOTHING_YET[language_of(question)]


@pytest.mark.parametrize("question", list(ANSWERED))
def test_a_question_a_memory_answers_gets_its_fact(journal, question):
    start = time.perf_counter()
    out = journal.companion.chat(question, timestamp=NOW, remember=False)
    print(f"\n{question} -> {out['reply']!r} ({time.perf_counter() - start:.1f} s, {out.get('grounded')})")
    reply = out["reply"] or ""
    # The memory's fact, or, where the small model strays from what it was given, the honest answer:
    # never a fact it was not given.
    assert ANSWERED[question] in reply or reply == grounding.NOTHING_YET["ko"], reply
    assert language_of(reply) == "ko"
