"""Just after midnight the app's writer wakes and renews the model's idle work for the new day: what a
server nearby read ahead last night carried last night's date (pipeline/read_ahead.py)."""

from datetime import date, datetime, timedelta

from memoir_desktop.ui.background_writer import ms_to_next_day


def test_the_writer_wakes_a_minute_past_midnight():
    assert ms_to_next_day(datetime(2026, 12, 7, 23, 59, 0)) == 120_000
    assert ms_to_next_day(datetime(2026, 12, 8, 0, 0, 30)) == (24 * 3600 + 30) * 1000


def test_at_a_new_day_the_server_reads_ahead_again(window, backend, fake_llm, qtbot):
    backend.mem.journal.write("오늘 회사에서 새 프로젝트 발표를 했다.")
    backend.writer.poke()

    def read_ahead() -> int:
        return sum(r.get("_purpose") == "prefill" for r in fake_llm.requests)

    qtbot.waitUntil(lambda: read_ahead() == 1 and backend.idle, timeout=15_000)
    assert backend.writer._new_day.isActive()
    backend.mem.jobs.today = lambda: date.today() + timedelta(days=1)
    backend.writer._new_day.timeout.emit()  # as at midnight
    qtbot.waitUntil(lambda: read_ahead() == 2, timeout=15_000)
    assert backend.writer._new_day.isActive(), "the next midnight's wake-up was not set"
