"""A model that answers, only slower than the time limit, is called slow, not unreachable."""

from memoir_desktop.core import Memoir
from tests.fakes.fake_llm import slow, tool, user_lines
from tests.ui.conftest import make_window


def test_a_server_slower_than_the_limit_is_called_slow_not_unreachable(fake_llm, qtbot, tmp_path):
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    fake_llm.on("save_facts", lambda req: slow(2.0, tool({"facts": user_lines(req)})))
    mem = Memoir.open(tmp_path / "home", llm_base_url=fake_llm.url, llm_model="m", llm_timeout_s=0.5,
                      llm_max_retries=0)
    backend = AsyncMemoir(mem)
    try:
        window = make_window(backend, qtbot, tmp_path)
        mem.journal.write("오늘은 동생이랑 국밥을 먹었다")
        backend.writer.poke()
        qtbot.waitUntil(lambda: window.status.llm_state is not None and window.status.llm_state is not True,
                        timeout=20_000)
        assert window.status.llm.text() == "◐ AI가 너무 느림"  # the tests run the app in Korean
        assert "제한 시간" in window.status.llm.toolTip()
        [job] = mem.jobs.all("pending")
        assert job["reason"]["kind"] == "timeout"
        # The entry's note says why it waits: not "connecting", the AI is there and slow.
        window.journal.show_today()
        qtbot.waitUntil(lambda: any("느려서" in t.title.text() for t in _ops_logs(window)), timeout=10_000)
    finally:
        backend.shutdown(10_000)
        mem.close()


def _ops_logs(window):
    from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog

    return window.journal.chat.findChildren(MemoryOpsLog)
