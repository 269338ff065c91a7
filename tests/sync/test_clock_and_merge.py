"""The pure parts: hybrid logical clocks and the merge of two records (no journal, no target)."""

import itertools
import random

from memoir_desktop.core.sync import hlc
from memoir_desktop.core.sync.merge import merge, stamp


def test_a_clock_moves_past_what_it_has_seen_and_never_back(monkeypatch):
    wall = [1_000_000]
    monkeypatch.setattr(hlc, "wall_ms", lambda: wall[0])
    a, b = hlc.Clock("aaaa"), hlc.Clock("bbbb")
    first = a.now()
    wall[0] -= 5_000  # the clock is set back
    assert a.now() > first
    far = hlc.stamp(1_000_000 + 86_400_000, 3, "cccc")  # a stamp from a computer a day ahead
    b.observe(far)
    assert b.now() > far  # what b does after seeing it comes after it
    assert all(hlc.is_stamp(x) for x in (first, far)) and not hlc.is_stamp("yesterday")


def record(content: str, s: str, events: list[str], content_event: str | None = None) -> dict:
    return {"t": "entry", "id": "e1", "content_event": content_event,
            "events": [{"id": e, "event": "EDIT", "created_at": e} for e in events],
            "fields": {"content": content, "updated_at": None, "created_at": "2026-01-01T00:00:00",
                       "deleted_at": None, "private": False, "user_id": "me", "role": "user", "source": "journal",
                       "tags": [], "time_zone": None, "source_ref": None, "reply_to": None, "kind": "entry"},
            "stamps": {"content": s, "time": "1|0", "trash": "1|0", "private": "1|0", "about": "1|0"}}


def test_merging_is_the_same_in_any_order():
    rng = random.Random(3)
    versions = [record(f"text {i}", stamp(1, hlc.stamp(rng.randrange(10**9), 0, f"d{i}")), [f"ev{i}"], f"ev{i}")
                for i in range(4)]
    results = set()
    for order in itertools.permutations(versions):
        acc = order[0]
        for nxt in order[1:]:
            acc = merge(acc, nxt).record
        results.add((acc["fields"]["content"], tuple(e["id"] for e in acc["events"])))
    assert len(results) == 1
    [(content, events)] = results
    assert content == max(versions, key=lambda v: v["stamps"]["content"])["fields"]["content"]
    assert set(events) == {"ev0", "ev1", "ev2", "ev3"}  # every edit stays in the story


def test_a_concurrent_edit_is_a_conflict_and_a_later_one_is_not():
    base = record("v0", stamp(1, hlc.stamp(1, 0, "a")), [])
    mine = record("mine", stamp(1, hlc.stamp(5, 0, "a")), ["a1"], "a1")
    theirs = record("theirs", stamp(1, hlc.stamp(6, 0, "b")), ["b1"], "b1")
    m = merge(mine, theirs)
    assert m.record["fields"]["content"] == "theirs" and m.conflict is not None and m.conflict.other == "mine"
    assert merge(theirs, mine).conflict.other_event == m.conflict.other_event  # the same conflict on both sides
    after = record("after", stamp(1, hlc.stamp(7, 0, "b")), ["a1", "b2"], "b2")  # made having seen mine
    assert merge(mine, after).conflict is None and merge(base, mine).conflict is None


def test_a_users_change_outranks_a_later_model_change():
    model = {"t": "memory", "id": "m", "fields": {"text": "by the model", "state": "active"},
             "stamps": {"text": stamp(0, hlc.stamp(9_999, 0, "a"))}}
    user = {"t": "memory", "id": "m", "fields": {"text": "by the user", "state": "active"},
            "stamps": {"text": stamp(1, hlc.stamp(1, 0, "b"))}}
    assert merge(model, user).record["fields"]["text"] == merge(user, model).record["fields"]["text"] == "by the user"
