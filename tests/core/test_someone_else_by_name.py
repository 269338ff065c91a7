"""A named person's doing is no version of the diarist's state: "서진이는 아직도 클라이밍 다닌대" is a
friend's, not an answer to "요새 무슨 운동 해?", however new. Told from the line's structure: someone
as its subject or topic (a given name with its -이, or a word of address such as 누나 or 형, before
은/는/이/가 and a doing the line goes on with; not any proper noun), a report of news naming someone
("결혼한대"); English: a capitalised first word followed by 's or a verb of someone's doing. Unless
the line also says I/me/내/우리, the question names that person, or the question asks who."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.core import dated_journal

KO = [
    ("2024-07-14", "퇴근하고 클라이밍 주 2회 다니기 시작했다"),
    ("2024-09-02", "회사 근처 국밥집 단골이 됐다"),
    ("2025-01-20", "조카 돌잔치에 다녀왔다"),
    ("2025-04-12", "어깨가 아파서 클라이밍 접고 필라테스 10회권 끊음"),
    ("2025-06-30", "여름휴가로 속초에 다녀왔다"),
    ("2025-08-16", "서진이는 아직도 클라이밍 다닌대, 이번에 V5 깼다고 자랑"),
    ("2025-10-03", "추석에 부모님 댁에서 송편을 빚었다"),
]
EN = [
    ("2024-03-01", "Started doing CrossFit at the box on Elm Street"),
    ("2024-06-15", "Repainted the kitchen a pale green"),
    ("2025-02-10", "Quit CrossFit after the shoulder injury; swimming laps at the Y instead"),
    ("2025-05-04", "Booked flights to Lisbon for October"),
    ("2025-09-01", "Tom's still doing CrossFit five days a week"),
    ("2025-10-12", "Had dinner at the new ramen place downtown"),
]
NOW = datetime(2025, 11, 20, 12)
PILATES = "어깨가 아파서 클라이밍 접고 필라테스 10회권 끊음"
FRIEND = "서진이는 아직도 클라이밍 다닌대, 이번에 V5 깼다고 자랑"
SWIM = "Quit CrossFit after the shoulder injury; swimming laps at the Y instead"
TOM = "Tom's still doing CrossFit five days a week"


@pytest.fixture
def journal(mem):
    dated_journal.write(mem, KO, user_id="ko")
    return dated_journal.write(mem, EN, user_id="en")


def _top(mem, user, question):
    return dated_journal.top(mem, question, NOW, user_id=user)


@pytest.mark.parametrize("user,question,mine", [
    ("ko", "요새 무슨 운동 해?", PILATES),
    ("en", "What exercise do I do these days?", SWIM),
])
def test_a_friends_newer_doing_is_no_version_of_the_diarists_state(journal, user, question, mine):
    got = _top(journal, user, question)
    assert got[0] == mine, got


@pytest.mark.parametrize("user,question,theirs", [
    ("ko", "서진이 요즘 무슨 운동 해?", FRIEND),
    ("en", "What does Tom do for exercise now?", TOM),
])
def test_a_question_about_that_person_gets_their_line(journal, user, question, theirs):
    got = _top(journal, user, question)
    assert got[0] == theirs, got


def test_who_reads_the_line_as_the_diarists_own():
    from memoir_desktop.core.search.versions import mine, whose

    assert whose(FRIEND) == "서진" and whose(TOM) == "Tom"
    assert whose(PILATES) is None and whose("나는 요즘 필라테스를 한다") is None
    assert whose("갤럭시는 배터리가 반나절도 안 간다") is None  # a thing's name, not a person's
    assert mine("미경이 재택 늘어서 하린이 하원은 이제 내가 맡는다", "요즘 하린이 하원은 누가 시켜?")
    assert mine("미경이 재택 늘어서 하린이 하원은 이제 내가 맡는다", "요즘 하린이 하원 몇 시야?")
    assert mine("Karen moved in with me", "Who do I live with now?")
    assert mine(FRIEND, "요즘 같이 클라이밍 다니는 사람 누구야?")


SISTER = [
    ("2024-05-01", "주말마다 동네 수영장에서 자유수영을 한다"),
    ("2024-11-02", "회사 근처 국밥집 단골이 됐다"),
    ("2025-03-10", "수영 그만두고 탄천에서 자전거 타는 게 요즘 주 운동이다"),
    ("2025-06-30", "여름휴가로 속초에 다녀왔다"),
    ("2025-09-20", "누나가 요즘 필라테스를 다닌다"),
    ("2025-10-03", "추석에 부모님 댁에서 송편을 빚었다"),
]


PARTNER_EN = [
    ("2024-03-04", "Started work as a staff nurse at Salford Royal"),
    ("2024-08-10", "Repainted the hallway"),
    ("2025-05-19", "Got hired at Stepping Hill as a ward sister, starting in June"),
    ("2025-07-02", "Booked the ferry to Dublin"),
    ("2025-10-08", "My climbing partner Jess works as a vet in Sale now"),
    ("2025-10-30", "Made a pot of chilli for the week"),
]


@pytest.mark.parametrize(("rows", "question", "mine"), [
    # a word of address as the subject: 누나's pilates is hers
    (SISTER, "요즘 무슨 운동 해?", "수영 그만두고 탄천에서 자전거 타는 게 요즘 주 운동이다"),
    # "My climbing partner Jess works as a vet": "my" says whose partner, the doing is Jess's
    (PARTNER_EN, "Where do I work these days?", "Got hired at Stepping Hill as a ward sister, starting in June"),
], ids=["word-of-address", "my-partner-by-name"])
def test_a_line_whose_subject_is_someone_else_is_theirs(mem, rows, question, mine):
    dated_journal.write(mem, rows, user_id="other")
    got = _top(mem, "other", question)
    assert got[0] == mine, got


@pytest.mark.parametrize("line,holder", [
    ("누나가 요즘 필라테스를 다닌다", "누나"),  # a word of address as the subject of the line's doing
    ("영호형이 회사를 그만두고 세종에서 낚시용품점을 차렸다", "영호 형"),  # ... going on after 고
    ("유나 남친이랑 내년 4월에 결혼한대", "유나"),  # news heard, naming someone
    ("Jordan's moving to Dubai for a site manager job", "Jordan"),
    ("입사 동기 병철이는 정년이 연장돼서 아직 회사에 다닌다", "입사 동기 병철이"),  # Kiwi keeps the -이 in the name
    ("지현쌤은 아직도 필라테스에 다니면서 나더러 다시 오라고 성화다", "지현 쌤"),  # 쌤, a word of address
])
def test_someone_elses_line_by_its_structure(line, holder):
    from memoir_desktop.core.search.versions import whose

    assert whose(line) == holder


@pytest.mark.parametrize("line", [
    "무릎이 아파서 러닝 대신 수영을 시작했다",  # how a thing is: the setting of the diarist's doing
    "비가 와서 헬스 대신 홈트 했다",  # a reason
    "골프는 돈이 너무 들어서 접고 주말엔 로드 자전거로 아라뱃길을 달린다",  # a thing given up, as the topic
    "망원동에서는 골목 끝 찻집에 자주 들른다",  # a place as the topic
    "폴더폰 버튼이 자꾸 씹혀서 대리점 갔더니 아직 쓸 만하다 함",  # the shop's word about the diarist's phone
    "누나가 아파서 병원에 데려다주고 왔다",  # someone's state, the setting of the diarist's doing
    "형한테는 비밀로 하고 새 차를 계약했다",  # someone after a case particle: not the subject
    "아이폰이 고장나서 갤럭시로 바꿨다",  # a brand is a proper noun, not a person
    "갤럭시는 배터리가 오래 간다",
    "우리 동네 스타벅스가 문을 닫았다",  # a place, though shaped like "동기 민재가"
])
def test_the_diarists_own_lines_stay_theirs(line):
    from memoir_desktop.core.search.versions import whose

    assert whose(line) is None

