"""The companion says only what it knows: with nothing that bears on a question about the diarist it
says so in the question's language without asking the model; a memory about another thing is not
handed over to be dressed up as the answer; a reply stating what it was never told is replaced."""

from __future__ import annotations

from datetime import datetime

from memoir_desktop.core.companion import grounding

NOW = datetime(2026, 3, 1, 21)


def _answers(fake_llm) -> list[dict]:
    return [r for r in fake_llm.requests if r.get("_purpose") == "answer"]


def test_with_no_memories_a_korean_question_gets_an_honest_korean_answer_without_the_model(mem, fake_llm):
    fake_llm.on_text(lambda req: "Your cat is called Nabi!")  # what a small model would make up
    out = mem.companion.chat("내 고양이 이름이 뭐야?", timestamp=NOW, remember=False)
    assert out["reply"] == grounding.NOTHING_YET["ko"]
    assert _answers(fake_llm) == []


def test_an_english_question_gets_its_answer_in_english(mem, fake_llm):
    fake_llm.on_text(lambda req: "You hurt it skiing in 2019.")
    out = mem.companion.chat("What did I tell you about my knee?", timestamp=NOW, remember=False)
    assert out["reply"] == grounding.NOTHING_YET["en"]


def test_a_memory_about_another_animal_is_not_handed_over_as_the_answer(mem, fake_llm):
    for text in ("강아지 이름은 초코다", "강아지 초코와 아침마다 산책한다", "회사는 판교에 있다"):
        mem.add(text, infer=False, timestamp=datetime(2026, 1, 5, 21))
    fake_llm.on_text(lambda req: "고양이 이름은 초코예요.")
    out = mem.companion.chat("내 고양이 이름이 뭐야?", timestamp=NOW, remember=False)
    assert out["reply"] == grounding.NOTHING_YET["ko"] and _answers(fake_llm) == []


def test_the_memory_that_answers_is_given_and_its_answer_kept(mem, fake_llm):
    for text in ("강아지 이름은 초코다", "회사는 판교에 있다", "주말마다 테니스를 친다"):
        mem.add(text, infer=False, timestamp=datetime(2026, 1, 5, 21))
    fake_llm.on_text(lambda req: "강아지 이름은 초코예요.")
    out = mem.companion.chat("내 강아지 이름이 뭐야?", timestamp=NOW, remember=False)
    assert out["reply"] == "강아지 이름은 초코예요."
    [asked] = _answers(fake_llm)
    system = asked["messages"][0]["content"]
    assert "강아지 이름은 초코다" in system and "판교" not in system  # only what bears on the question
    assert "Korean" in system and asked["messages"][-1]["content"] == "내 강아지 이름이 뭐야?"  # question last


def test_an_invented_answer_is_replaced_by_an_honest_one(mem, fake_llm):
    mem.add("고양이를 보호소에서 입양했다", infer=False, timestamp=datetime(2026, 1, 5, 21))
    fake_llm.on_text(lambda req: "고양이 이름은 나비예요. 2021년에 입양하셨죠.")
    out = mem.companion.chat("내 고양이 이름이 뭐야?", timestamp=NOW, remember=False)
    assert len(_answers(fake_llm)) == 1  # the memory bears on it: the model was asked
    assert out["reply"] == grounding.NOTHING_YET["ko"] and out["grounded"] == "replaced"


def test_a_reply_to_a_day_told_keeps_to_what_it_was_told(mem, fake_llm):
    fake_llm.on_text(lambda req: "Sounds like a long day. Did Minsu help you with the report again?")
    out = mem.companion.chat("Work was exhausting today, the report took forever.", timestamp=NOW, remember=False)
    assert out["reply"] == grounding.HONEST_REPLY["en"]
    fake_llm.on_text(lambda req: "That sounds exhausting. Rest well tonight.")
    out = mem.companion.chat("Work was exhausting today, the report took forever.", timestamp=NOW, remember=False)
    assert out["reply"] == "That sounds exhausting. Rest well tonight."


def test_a_line_written_down_with_the_answer_comes_with_it(mem, fake_llm):
    # One entry's lines; the question's words are in one of them only.
    days = [(5, ["Sprained my ankle on the trail at Mount Tam", "Dana drove me to urgent care in Mill Valley"]),
            (10, ["Bought new trail running shoes"]), (14, ["Dana lent me her camping stove"]),
            (20, ["Went to urgent care for a bad cough"])]
    for day, lines in days:
        when = datetime(2026, 1, day, 21)
        eid = mem.journal.write(" ".join(lines), timestamp=when)
        for line in lines:
            mem.add(line, infer=False, timestamp=when, entry_id=eid)
    fake_llm.on_text(lambda req: "Dana drove you to urgent care.")
    out = mem.companion.chat("Who was with me when I sprained my ankle?", timestamp=NOW, remember=False)
    [asked] = _answers(fake_llm)
    system = asked["messages"][0]["content"]
    assert "Dana drove me to urgent care" in system and "camping stove" not in system
    assert out["reply"] == "Dana drove you to urgent care."  # grounded in what it was given
