"""The blind set's measures (eval/blind_retrieval.py): "newest first" for a present question and "old
found" for a past one, as the set's README defines them; a superseded memory not listed counts as
ranked below everything."""

from memoir_desktop.eval.blind_retrieval import score


def test_newest_first_needs_the_relevant_memory_on_top_and_above_every_superseded_one():
    assert score(["new", "old"], {"new"}, {"old"}, "present")["newest first"] == 1.0
    assert score(["old", "new"], {"new"}, {"old"}, "present")["newest first"] == 0.0
    assert score(["x", "new"], {"new"}, {"old"}, "present")["newest first"] == 0.0  # not first
    assert score(["new", "x"], {"new"}, {"old"}, "present")["newest first"] == 1.0  # old not listed


def test_old_found_needs_an_earlier_version_in_the_top_three_above_the_newer_ones():
    assert score(["x", "y", "old", "new"], {"old"}, {"new"}, "past")["old found"] == 1.0
    assert score(["new", "old"], {"old"}, {"new"}, "past")["old found"] == 0.0
    assert score(["x", "y", "z", "old"], {"old"}, {"new"}, "past")["old found"] == 0.0


def test_hits_mrr_and_all_at_ten_for_multi_hop():
    m = score(["a", "x", "b"], {"a", "b"}, set(), "multihop")
    assert (m["hit@1"], m["all@10"], m["mrr"]) == (1.0, 1.0, 1.0)
    m = score(["x", "a"], {"a", "b"}, set(), "multihop")
    assert (m["hit@1"], m["hit@5"], m["all@10"], m["mrr"]) == (0.0, 1.0, 0.0, 0.5)
    assert "newest first" not in m and "old found" not in m
