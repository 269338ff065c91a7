"""Notes a diarist sees after every entry must be news: a private entry written before is their own
choice (it was said after every later entry: "1 private entry not sent"), and the summary the journal
keeps is not an entry waiting to be read ("entries waiting" counted it)."""

from datetime import datetime


def test_a_private_entry_written_before_is_not_announced_after_every_later_one(mem, fake_llm):
    mem.journal.write("아침에 커피를 내렸다", timestamp=datetime(2026, 3, 2, 9))
    mem.jobs.process()
    mem.journal.write("혼자만 알고 싶은 이야기", private=True, timestamp=datetime(2026, 3, 2, 20))
    mem.journal.write("오늘은 공원을 걸었다", timestamp=datetime(2026, 3, 2, 21))
    [job] = [r for r in mem.jobs.process() if r["kind"] == "memorize"]
    assert job["state"] == "done" and "left_out" not in job["result"]
    out = mem.companion.chat("공원 산책이 좋았다", timestamp=datetime(2026, 3, 2, 22))
    assert out["left_out"] == 0


def test_the_summary_is_not_an_entry_waiting(mem, fake_llm):
    mem.settings.summary_interval = 1
    fake_llm.fail_next(500, times=50)  # the server is down: every job waits
    mem.journal.write("첫 기록")
    mem.jobs.process()
    mem.job_queue.add("summary", "me", {})
    assert mem.jobs.status()["pending_jobs"] == 1  # the entry's job, not the summary
