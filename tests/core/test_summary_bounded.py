"""A running summary that ran long costs every extraction after it only its first sentences.

From SmolLM2 it filled a 2,048-token server's context, and every extraction went without context.

Asked for at most 200 words, Qwen2.5 0.5B once wrote 1,024 tokens (its cap); every later extraction
read all of them again, 16-18 s an entry instead of 6 on two cores."""

import re
from datetime import datetime, timedelta

from memoir_desktop.core import Memoir
from memoir_desktop.core.llm.tokens import count_tokens
from memoir_desktop.core.pipeline.extraction import SUMMARY_TOKENS
from tests.fakes.fake_llm import FakeLLM, prompt

SENTENCE = "지민이는 부산으로 이사 갈 예정이고 나는 수영을 배우고 있다. "
RAMBLING = SENTENCE * 200 + "끝나지 않은 문장"


def _summary_in(req) -> str:
    text = prompt(req, "Conversation summary so far:")
    return re.search(r"Conversation summary so far:\n(.*?)\n\nRecent messages:", text, re.S).group(1)


def test_a_long_summary_reaches_the_extraction_as_its_first_whole_sentences(tmp_path):
    server = FakeLLM()
    server.on_text(lambda req: RAMBLING)
    try:
        with Memoir.open(tmp_path / "home", llm_base_url=server.url, llm_model="m", llm_max_retries=0,
                         summary_interval=1) as m:
            day = datetime(2026, 12, 1, 21)
            m.journal.write("오늘 수영을 처음 배웠다.", timestamp=day)
            m.jobs.process()
            m.journal.write("여동생이 다음 달에 이사 간다.", timestamp=day + timedelta(days=1))
            m.jobs.process()
        sent = _summary_in(server.calls("save_facts")[-1])
        assert SENTENCE.strip() in sent
        assert count_tokens(sent) <= SUMMARY_TOKENS + 2
        assert "끝나지 않은" not in sent and sent.endswith("다. …")
    finally:
        server.close()
