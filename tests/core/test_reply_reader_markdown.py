"""A model that answers in plain Markdown instead of JSON (a replayed real reply: a bullet list of
facts whose last line is `entities: ...`): the reader takes the facts from the bullets and, asked
for entities, the entities from their line; the entities line is never read as a fact. Prose
without a list stays unreadable."""

from __future__ import annotations

import pytest

from memoir_desktop.core.llm import args
from memoir_desktop.core.llm.prompts import EXTRACTION_TOOL, GRAPH_ENTITIES_TOOL
from memoir_desktop.core.llm.reader import Unreadable, read_reply
from tests.fakes.fake_llm import raw

REPLY = """Here is what I found:

- 재즈를 좋아한다
- **피아노를 친다**
* 주말마다 연습한다

entities: 재즈, 피아노"""


def test_the_bullets_are_the_facts_and_the_entities_line_is_not_one():
    reading = read_reply(REPLY, EXTRACTION_TOOL.parameters)
    facts = args.FactsArgs.model_validate(reading.value).facts
    assert [f.text for f in facts] == ["재즈를 좋아한다", "피아노를 친다", "주말마다 연습한다"]
    assert "markdown-list" in reading.repairs


def test_asked_for_entities_the_same_reply_gives_its_entities_line():
    reading = read_reply(REPLY, GRAPH_ENTITIES_TOOL.parameters)
    entities = args.EntitiesArgs.model_validate(reading.value).entities
    assert [e.name for e in entities] == ["재즈", "피아노"]


@pytest.mark.parametrize("reply", ["I cannot help with that", "Sure! The user likes jazz.",
                                   "<think>- a draft fact</think>"])
def test_prose_or_a_draft_in_reasoning_is_still_no_reply(reply):
    with pytest.raises(Unreadable):
        read_reply(reply, EXTRACTION_TOOL.parameters)


def test_the_write_path_keeps_the_bulleted_facts(mem, fake_llm):
    fake_llm.on("save_facts", lambda req: raw(REPLY))
    mem.journal.write("나는 재즈를 좋아하고 피아노를 쳐")
    res, _graph = mem.jobs.process()  # the graph's reading follows
    assert res["state"] == "done", res
    assert sorted(m["memory"] for m in mem.get_all()["results"]) == sorted(
        ["재즈를 좋아한다", "피아노를 친다", "주말마다 연습한다"])


def test_a_numbered_list_with_an_entities_line_gives_its_fact_and_never_the_entities(mem, fake_llm):
    # Was an "unreadable" shape in test_reader_shapes.py (it failed the job); its fact is the
    # numbered line, and "hermes" of the entities line is still never stored as a fact.
    body = '1. The user is building hermes\n2. entities: ["hermes", "sistema de memória"]'
    fake_llm.capabilities.clear()  # text mode: the reply is exactly what the model wrote
    fake_llm.on("save_facts", lambda req: raw(body))
    mem.journal.write("오늘 재즈 바에 갔다")
    job, _graph = mem.jobs.process()  # the graph's reading follows
    assert job["state"] == "done", job.get("error")
    assert [m["memory"] for m in mem.get_all()["results"]] == ["The user is building hermes"]
    entities = args.EntitiesArgs.model_validate(read_reply(body, GRAPH_ENTITIES_TOOL.parameters).value).entities
    assert [e.name for e in entities] == ["hermes", "sistema de memória"]
