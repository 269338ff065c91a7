"""Recorded reply shapes (tests/data/llm_replies) replayed through the real openai client and the
whole write path: each ends in the stored memories it names, or in a failed, visible job that keeps
the raw reply."""

import json
from pathlib import Path

import pytest

from tests.fakes.fake_llm import raw, raw_tool

DATA = Path(__file__).resolve().parents[1] / "data" / "llm_replies"
EXTRACTION = json.loads((DATA / "extraction.json").read_text(encoding="utf-8"))
UPDATE = json.loads((DATA / "update.json").read_text(encoding="utf-8"))


def serve(case):
    if case["via"] == "tool":
        return lambda req: raw_tool(case["reply"], case.get("finish_reason"))
    return lambda req: raw(case["reply"], case.get("finish_reason"))


@pytest.mark.parametrize("case", EXTRACTION["cases"], ids=[c["id"] for c in EXTRACTION["cases"]])
def test_extraction_reply_shapes(mem, fake_llm, case):
    fake_llm.on("save_facts", serve(case))
    eid = mem.journal.write("나는 재즈를 좋아하고 피아노를 쳐")
    res, *_graph = mem.jobs.process()  # a graph job follows a memorize job that is done
    if case["expect"] == "failed":
        assert res["state"] == "failed", res
        [job] = mem.jobs.all(entry_ids=[eid])
        assert job["state"] == "failed" and job["error"]
        if case["reply"]:
            assert case["reply"][:20] in job["raw_reply"]
        assert [e["content"] for e in mem.journal.entries()] == ["나는 재즈를 좋아하고 피아노를 쳐"]
        return
    assert res["state"] == "done", res
    assert sorted(m["memory"] for m in mem.get_all()["results"]) == sorted(case["expect"])
    for m in mem.get_all()["results"]:
        m["memory"].encode("utf-8")  # always storable


@pytest.mark.parametrize("case", UPDATE["cases"], ids=[c["id"] for c in UPDATE["cases"]])
def test_update_reply_shapes(mem, fake_llm, case):
    mem.add(UPDATE["existing"])  # through the LLM path: not protected, every operation may apply
    fake_llm.on("memory_operations", serve(case))
    mem.journal.write(UPDATE["new_fact"])
    res, *_graph = mem.jobs.process()  # a graph job follows a memorize job that is done
    assert res["state"] == "done", res
    assert sorted(m["memory"] for m in mem.get_all()["results"]) == sorted(case["expect"])
