"""Pure helpers behind the widgets: memory filters, day grouping, chart series, translations."""

import ast
import json
from datetime import date, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

from memoir_desktop.viewmodels.day import build_day_view
from memoir_desktop.viewmodels.memory_filters import MemoryFilter, apply_filter
from memoir_desktop.viewmodels.stats_series import latency_series, stage_table, tokens_per_turn

ROOT = Path(__file__).resolve().parents[2]


def _mem(i, text, state="active", entry=1, edited=False, created="2026-03-01T10:00:00", about=None):
    return {"id": f"m{i}", "memory": text, "state": state, "source_entry_id": entry, "user_edited": edited,
            "created_at": created, "updated_at": created, "about": about}


def test_filter_state_source_and_dates():
    ms = [_mem(1, "커피를 좋아한다"), _mem(2, "헬스장에 다닌다", state="invalid"),
          _mem(3, "고양이를 키운다", entry=None, edited=True, created="2026-01-05T09:00:00"),
          _mem(4, "3월에 제주도 여행", created="2025-12-01T09:00:00", about=["2026-03-01", "2026-03-31"])]
    assert [m["id"] for m in apply_filter(ms, MemoryFilter())] == ["m1", "m3", "m4"]
    assert [m["id"] for m in apply_filter(ms, MemoryFilter(state="forgotten"))] == ["m2"]
    assert [m["id"] for m in apply_filter(ms, MemoryFilter(source="manual"))] == ["m3"]
    assert [m["id"] for m in apply_filter(ms, MemoryFilter(source="edited"))] == ["m3"]
    march = MemoryFilter(since=date(2026, 3, 1), until=date(2026, 3, 31))
    # m4 was recorded in December but is about March: it belongs to March too.
    assert {m["id"] for m in apply_filter(ms, march)} == {"m1", "m4"}


def test_text_filter_puts_ranked_hits_first_then_substring_matches():
    ms = [_mem(1, "아침에 커피를 마신다"), _mem(2, "카페인에 약하다"), _mem(3, "고양이를 키운다")]
    f = MemoryFilter(text="커피")
    assert [m["id"] for m in apply_filter(ms, f)] == ["m1"]
    # The core's ranked search (meaning, morphemes) adds m2; ranked order wins.
    assert [m["id"] for m in apply_filter(ms, f, ranked_ids=["m2", "m1"])] == ["m2", "m1"]


def test_day_view_groups_an_exchange_with_its_job_and_joins_a_separate_reply():
    entries = [{"id": 1, "role": "user", "content": "a", "created_at": "2026-03-01T10:00:00"},
               {"id": 2, "role": "assistant", "content": "b", "created_at": "2026-03-01T10:00:01"},
               {"id": 3, "role": "user", "content": "c", "created_at": "2026-03-01T11:00:00"},
               {"id": 4, "role": "assistant", "content": "d", "created_at": "2026-03-01T11:00:01"}]
    jobs = [{"id": 7, "kind": "memorize", "state": "done", "payload": {"entry_ids": [1, 2]},
             "result": {"results": [{"id": "x", "memory": "a", "event": "ADD"}]}},
            {"id": 8, "kind": "memorize", "state": "pending", "payload": {"entry_ids": [3]}, "result": {}},
            {"id": 9, "kind": "memorize", "state": "done", "payload": {"entry_ids": [4]},
             "result": {"results": []}}]
    view = build_day_view(date(2026, 3, 1), entries, jobs)
    assert [[e["id"] for e in x.entries] for x in view.exchanges] == [[1, 2], [3, 4]]
    assert view.exchanges[0].job["result"]["results"][0]["event"] == "ADD"
    merged = view.exchanges[1].job
    assert merged["ids"] == [8, 9] and merged["state"] == "pending"


def test_chart_series():
    t0 = datetime(2026, 3, 1, 10)
    row = lambda stage, ms, job, k, p=0, c=0: SimpleNamespace(
        stage=stage, ms=ms, job_id=job, prompt_tokens=p, completion_tokens=c, created_at=t0 + timedelta(seconds=k))
    rows = [row("extraction", 100, 1, 0, 90, 10), row("update", 300, 1, 1, 50, 10), row("embedding", 5, 1, 2),
            row("extraction", 200, 2, 3, 100, 20)]
    xs, p50, p95 = latency_series(rows, "extraction")
    assert len(xs) == 2 and p50 == [100, 150] and p95[1] == 195
    assert tokens_per_turn(rows)[1] == [160.0, 120.0]
    assert stage_table(rows)[0][:2] == ("extraction", 2)


def _tr_strings() -> set[str]:
    found = set()
    for path in (ROOT / "memoir_desktop" / "ui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            args = node.args
            if name == "tr" and args and isinstance(args[0], ast.Constant):
                found.add(args[0].value)
            elif name == "translate" and len(args) >= 2 and isinstance(args[1], ast.Constant):
                found.add(args[1].value)
    return found


def test_every_ui_string_has_a_korean_translation_and_keeps_its_placeholders():
    ko = json.loads((ROOT / "resources" / "i18n" / "ko.json").read_text("utf-8"))
    strings = _tr_strings()
    assert len(strings) > 100
    assert sorted(s for s in strings if s not in ko) == []
    for source in strings:
        for placeholder in ("{error}", "{model}", "{date}", "{query}", "{text}", "%n", "{old}", "{new}"):
            if placeholder in source:
                assert placeholder in ko[source], (source, ko[source])


def test_translator_plural_forms(qapp):
    from PySide6.QtCore import QCoreApplication

    from memoir_desktop.ui.shared import i18n

    try:
        assert i18n.install("en") == "en"
        text = "✎ %n entry(ies) waiting to be organized"
        assert QCoreApplication.translate("X", text, None, 1) == "✎ 1 entry waiting to be organized"
        assert QCoreApplication.translate("X", text, None, 3) == "✎ 3 entries waiting to be organized"
        i18n.install("ko")
        assert QCoreApplication.translate("X", text, None, 3) == "✎ 정리 대기 중인 기록 3건"
        assert QCoreApplication.translate("X", "not a UI string") == "not a UI string"
    finally:
        i18n.install("ko")


def test_day_view_shows_the_relations_read_after_the_memories_with_them():
    entries = [{"id": 1, "role": "user", "content": "성수동으로 이사했다", "created_at": "2026-03-01T10:00:00"}]
    jobs = [{"id": 7, "kind": "memorize", "state": "done", "payload": {"entry_ids": [1]},
             "result": {"results": [{"id": "x", "memory": "나는 성수동으로 이사했다", "event": "ADD"}]}},
            {"id": 8, "kind": "graph", "state": "done", "payload": {"entry_ids": [1], "entry_id": 1, "after": 7},
             "result": {"relations": [{"event": "EDGE_ADD", "text": "나 -[산다]-> 성수동"}], "after_job": 7}}]
    [exchange] = build_day_view(date(2026, 3, 1), entries, jobs).exchanges
    assert exchange.job["result"]["results"][0]["memory"] == "나는 성수동으로 이사했다"
    assert [r["text"] for r in exchange.job["result"]["relations"]] == ["나 -[산다]-> 성수동"]
    assert not exchange.job["result"]["graph_pending"]
    jobs[1] = {**jobs[1], "state": "pending", "result": None}  # still to be read: the log says so
    [exchange] = build_day_view(date(2026, 3, 1), entries, jobs).exchanges
    assert exchange.job["result"]["graph_pending"] and not exchange.job["result"].get("relations")


def test_relations_read_after_the_memories_join_their_log_and_replace_nothing_new(qtbot):
    from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog

    log = MemoryOpsLog(7)
    qtbot.addWidget(log)
    log.show_result({"id": 7, "state": "done", "result": {"results": [], "graph_pending": True}})
    nothing, finding = log.tr("Nothing new to remember."), log.tr("Looking for the people and places in it…")
    shown = lambda: [w.text() for w in log.findChildren(type(log.title)) if not w.isHidden()]  # noqa: E731
    assert nothing in shown() and finding in shown()
    log.add_relations([{"event": "EDGE_ADD", "text": "나 -[산다]-> 성수동"}])
    assert log.events == ["EDGE_ADD"] and nothing not in shown() and any("성수동" in t for t in shown())
    assert finding not in shown() and finding not in log.accessibleDescription()


def test_a_graph_reading_that_finds_nothing_leaves_the_memories_as_they_were(qtbot):
    from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog

    log = MemoryOpsLog(7)
    qtbot.addWidget(log)
    log.show_result({"id": 7, "state": "done", "result": {
        "results": [{"id": "a", "memory": "첼로를 배우기 시작했다", "event": "ADD"}], "graph_pending": True}})
    finding = log.tr("Looking for the people and places in it…")
    qtbot.waitUntil(lambda: finding in log.accessibleDescription())  # a screen reader hears it too
    log.add_relations([])
    shown = [w.text() for w in log.findChildren(type(log.title)) if not w.isHidden()]
    assert finding not in shown and any("첼로" in t for t in shown) and log.events == ["ADD"]


def test_ops_log_shows_graph_relation_changes(qtbot):
    from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog

    log = MemoryOpsLog(7)
    qtbot.addWidget(log)
    log.show_result({"id": 7, "state": "done", "result": {
        "results": [{"id": "a", "memory": "나는 성수동으로 이사했다", "event": "ADD"}],
        "relations": [{"event": "NODE_ADD", "text": "성수동"},
                      {"event": "EDGE_ADD", "text": "나 -[산다]-> 성수동"},
                      {"event": "EDGE_INVALIDATE", "text": "나 -[산다]-> 망원동"}]}})
    assert log.events == ["ADD", "EDGE_ADD", "EDGE_INVALIDATE"]
    texts = [w.text() for w in log.findChildren(type(log.title))]
    assert any("망원동" in t for t in texts) and not any(t.endswith("성수동</b>") for t in texts)


def test_journal_stats_counts_days_streaks_weeks_and_memory_changes():
    from datetime import date

    from memoir_desktop.viewmodels.journal_stats import build_journal_stats

    def entry(day, text, role="user", kind="entry"):
        return {"created_at": f"{day}T21:00:00", "content": text, "role": role, "kind": kind}

    entries = [entry("2026-03-09", "지수랑 한강 산책"), entry("2026-03-10", "지수랑 한강 자전거"),
               entry("2026-03-11", "회사 일 많음 오늘"), entry("2026-03-11", "reply", role="assistant"),
               entry("2026-03-08", "letter words", role="assistant", kind="letter"), entry("2026-03-01", "혼자")]
    history = [{"event": "ADD", "created_at": "2026-03-10T21:00:00"},
               {"event": "UPDATE", "created_at": "2026-03-11T21:00:00"},
               {"event": "DELETE", "created_at": "2026-03-02T21:00:00"}]
    st = build_journal_stats(entries, [], history, today=date(2026, 3, 11))
    assert st.days == {date(2026, 3, 9): 1, date(2026, 3, 10): 1, date(2026, 3, 11): 1, date(2026, 3, 1): 1}
    assert (st.streak, st.longest, st.entries) == (3, 3, 4)
    assert st.week_starts[-1] == date(2026, 3, 9) and st.entries_per_week[-2:] == [0, 3]
    assert st.words_per_week[-1] == 10 and st.words_per_week[-3] == 1
    assert (st.added_per_week[-1], st.changed_per_week[-1], st.changed_per_week[-2]) == (1, 1, 1)
    [(month, words)] = st.themes_by_month
    assert month == date(2026, 3, 1) and sorted(words) == ["지수", "한강"]  # in two entries or more
    assert build_journal_stats(entries, [], history, today=date(2026, 3, 13)).streak == 0


def test_the_reminder_is_due_once_a_day_after_its_time_unless_the_day_is_written():
    from datetime import date, datetime

    from memoir_desktop.viewmodels.reminder import reminder_due

    at = "21:30"
    assert not reminder_due(datetime(2026, 3, 11, 21, 29), at, None, False)
    assert reminder_due(datetime(2026, 3, 11, 21, 30), at, None, False)
    assert not reminder_due(datetime(2026, 3, 11, 22, 0), at, date(2026, 3, 11), False)  # once a day
    assert reminder_due(datetime(2026, 3, 12, 22, 0), at, date(2026, 3, 11), False)
    assert not reminder_due(datetime(2026, 3, 11, 22, 0), at, None, True)  # already written
    assert reminder_due(datetime(2026, 3, 11, 21, 0), "nonsense", None, False)  # 21:00 by default


def test_journal_stats_average_the_weeks_moods():
    from datetime import date

    from memoir_desktop.viewmodels.journal_stats import build_journal_stats

    moods = [{"day": "2026-03-09", "mood": "great"}, {"day": "2026-03-10", "mood": "okay"},
             {"day": "2026-02-24", "mood": "bad"}]
    st = build_journal_stats([], [], [], today=date(2026, 3, 11), moods=moods, with_themes=False)
    assert st.mood_per_week[-1] == 4.0 and st.mood_per_week[-3] == 1.0 and st.mood_per_week[-2] is None
    assert st.has_moods and not build_journal_stats([], [], [], today=date(2026, 3, 11)).has_moods
