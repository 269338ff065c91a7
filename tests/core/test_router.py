import pytest

from memoir_desktop.core.search.router import route


@pytest.mark.parametrize("text", ["안녕", "안녕하세요!", "고마워", "ㅇㅋ", "응", "네~", "ㅋㅋㅋ", "hi", "Hello!",
                                  "thanks", "ok", "Good morning", "좋아요", "알겠어요.", ""])
def test_greetings_and_acknowledgements_skip_retrieval(text):
    r = route(text)
    assert r.retrieve is False and r.sources == []


@pytest.mark.parametrize("text", ["지난번에 말했던 책 제목이 뭐였지?", "예전에 내가 이사 고민 했었잖아", "기억나?",
                                  "Do you remember my sister's name?", "What did I say last time about work?"])
def test_recall_words_add_episodic(text):
    r = route(text)
    assert r.retrieve and "episodic" in r.sources and "dense" in r.sources


@pytest.mark.parametrize("text", ["민수랑 관련된 일 뭐 있었지?", "내 친구 중에 누가 부산 살아?", "Who is Jenny?",
                                  "what is related to my job?"])
def test_relation_words_add_graph(text):
    assert "graph" in route(text).sources
    assert "graph" not in route(text, graph_enabled=False).sources


@pytest.mark.parametrize("text", ["오늘 회사에서 힘들었어", "I went hiking today", "안녕, 오늘 기분이 별로야",
                                  "고마워 근데 내일 뭐 입지?"])
def test_ordinary_messages_retrieve_facts_only(text):
    r = route(text)
    assert r.retrieve and r.sources == ["dense", "lexical"]
