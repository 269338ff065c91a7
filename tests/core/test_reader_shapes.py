"""The reply reader tells "the model found nothing" from "the reply could not be read", for the
shapes real models send: an extraction job either stores the facts the reply holds, or ends failed
with the raw reply kept — never done-and-empty, and never with facts the reply did not give."""

import json

import pytest

from tests.fakes.fake_llm import raw

READABLE = {
    "description field": ({"facts": [{"description": "Likes jazz"}]}, ["Likes jazz"]),
    "keys in another case": ({"Facts": [{"Text": "Likes jazz", "Category": "preferences"}]}, ["Likes jazz"]),
    "nested list": ({"facts": [["Likes jazz"]]}, ["Likes jazz"]),
    "one string field": ({"facts": [{"observation": "Likes jazz", "category": "preferences"}]}, ["Likes jazz"]),
    "content field": ({"facts": [{"content": "재즈를 좋아한다"}]}, ["재즈를 좋아한다"]),
}
UNREADABLE = {
    "only a category": json.dumps({"facts": [{"category": "preferences"}]}),
    "tags, not facts": 'Tags for this: {"tags": ["jazz", "music"]}',
    "a draft the reasoning rejected": '<think>Draft: {"facts": ["사용자는 상사를 싫어한다"]}. Wait, the user never said '
                                      'that. No facts.</think>',
    "a draft rejected in Korean": '<think>{"facts": ["사용자는 상사를 싫어한다"]} 다시 보니 사용자가 말한 적 없다.</think>',
    "a draft beside prose": '<think>{"facts": ["사용자는 상사를 싫어한다"]}</think>Nothing to save here.',
}


def _answer_every_mode(fake_llm, body: str) -> None:
    """The same words whatever the mode asked (tool call, JSON, text), as a model that drifts does."""
    fake_llm.capabilities.clear()  # text mode: the reply is exactly what the model wrote
    fake_llm.on("save_facts", lambda req: raw(body))


@pytest.mark.parametrize("shape", list(READABLE))
def test_each_readable_shape_becomes_its_memories(mem, fake_llm, shape):
    reply, expected = READABLE[shape]
    _answer_every_mode(fake_llm, json.dumps(reply, ensure_ascii=False))
    mem.journal.write("오늘 재즈 바에 갔다")
    job, _graph = mem.jobs.process()  # the graph's reading follows
    assert job["state"] == "done", job.get("error")
    assert sorted(m["memory"] for m in mem.get_all()["results"]) == expected


@pytest.mark.parametrize("shape", list(UNREADABLE))
def test_an_unreadable_reply_fails_visibly_with_its_raw_text(mem, fake_llm, shape):
    body = UNREADABLE[shape]
    _answer_every_mode(fake_llm, body)
    mem.journal.write("오늘 재즈 바에 갔다")
    [job] = mem.jobs.process()
    assert job["state"] == "failed", (shape, job.get("result"))
    assert mem.get_all()["results"] == []  # nothing invented ("hermes", the rejected draft)
    [stored] = mem.jobs.all("failed")
    assert body[:40] in (stored["raw_reply"] or "")


def test_an_empty_list_is_still_found_nothing(mem, fake_llm):
    _answer_every_mode(fake_llm, '{"facts": []}')
    mem.journal.write("ㅎㅎ")
    job, _graph = mem.jobs.process()  # the graph's reading follows
    assert job["state"] == "done" and mem.get_all()["results"] == []
