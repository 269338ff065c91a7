"""Demo content for screenshots: a few Korean journal days and the memories they left, and another
AI app that connected to the journal.

Written through the public facade (journal entries, verbatim memories, a user edit, a
forget and a restore), so every screen shows real rows, including a full history. What an app does
is written by the journal's server in the app's own process, through the same core functions used
here: the facade has no "be an app" method, and should not.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from memoir_desktop.core.apps import app_suggestions, connected_apps

_DAYS = [
    (3, time(21, 40),
     "오늘 회사에서 새 프로젝트 킥오프를 했다. 팀장님이 나를 리드로 지명해서 조금 긴장된다.",
     ("리드로 지명되셨다니 축하해요! 긴장되는 건 그만큼 잘하고 싶다는 뜻이겠죠. "
      "첫 주에 가장 먼저 정리하고 싶은 건 무엇인가요?")),
    (2, time(22, 5),
     "저녁에 한강에서 5km를 달렸다. 요즘은 주 3회 러닝을 목표로 하고 있다.",
     "5km라니 멋져요. 지난주에 세운 **주 3회** 목표에 벌써 가까워지고 있네요."),
    (1, time(20, 30),
     "동생 지수 생일이라 가족끼리 저녁을 먹었다. 지수는 이제 대학교 3학년이다.",
     "지수 씨 생일 축하드려요 가족과 함께한 저녁이 따뜻했을 것 같아요."),
    (0, time(9, 15),
     "아침 커피를 **디카페인**으로 바꿨다. 확실히 밤에 잠이 잘 온다.\n\n고양이 모카는 여전히 새벽 5시에 깨운다.",
     ("좋은 변화네요! 정리해 보면:\n\n- 커피 → 디카페인으로 바꾼 뒤 수면이 좋아짐\n"
      "- 모카의 새벽 5시 알람은 그대로\n\n요즘 러닝도 꾸준하시니 컨디션이 더 좋아지겠어요.")),
]

_MEMORIES = [
    (3, "회사에서 새 프로젝트의 리드를 맡았다"),
    (2, "주 3회 러닝을 목표로 하고 있다"),
    (2, "한강에서 달리기를 한다"),
    (1, "동생 이름은 지수이고 대학교 3학년이다"),
    (0, "고양이 모카를 키운다"),
    (5, "매운 음식을 잘 먹지 못한다"),
    (9, "헬스장에 다닌다"),
]


# Earlier days, for On This Day, the writing calendar and last week's letter: (days ago, text).
_EARLIER = [
    (365, "첫 하프 마라톤을 완주했다. 마지막 3km는 거의 걸었지만 끝까지 갔다."),
    (30, "지수랑 부산 이사 이야기를 했다. 다음 달이면 지수가 부산으로 간다."),
    (8, "퇴근길에 한강을 따라 걸었다. 바람이 차가워졌다."),
    (9, "회사 프로젝트 일정이 당겨져서 야근했다. 그래도 팀 분위기는 좋다."),
    (10, "지수가 이삿짐 싸는 걸 도와 달라고 했다. 주말에 가기로 했다."),
    (11, "한강에서 러닝 5km. 페이스가 조금 좋아졌다."),
    (13, "엄마랑 통화했다. 김장 이야기를 한참 했다."),
    (16, "비 오는 날이라 집에서 책을 읽었다."),
    (18, "회사 회의가 길었다. 프로젝트 방향이 바뀌었다."),
    (22, "한강 러닝 3km. 무릎이 조금 아팠다."),
    (25, "모카가 새벽에 또 깨웠다."),
    (33, "지수 생일 선물을 골랐다."),
    (40, "주말에 친구들과 등산을 했다."),
    (47, "회사에서 발표를 했다. 긴장했지만 잘 끝났다."),
]


def seed_demo(mem, today: date | None = None) -> str:
    """Fill an empty journal; returns the id of the memory with the richest history."""
    today = today or date.today()
    for days_ago, at, text, reply in _DAYS:
        when = datetime.combine(today - timedelta(days=days_ago), at)
        mem.journal.write(text, timestamp=when)
        mem.journal.write(reply, timestamp=when + timedelta(minutes=1), role="assistant")
    for days_ago, text in _EARLIER:
        mem.journal.write(text, timestamp=datetime.combine(today - timedelta(days=days_ago), time(21, 30)))
    # A plan whose date passed two days ago: today's page asks how it went.
    moved = today - timedelta(days=2)
    mem.add(f"지수는 {moved.year}년 {moved.month}월 {moved.day}일에 부산으로 이사 간다", infer=False,
            timestamp=datetime.combine(today - timedelta(days=10), time(21, 30)))
    for days_ago, text in _MEMORIES:
        when = datetime.combine(today - timedelta(days=days_ago), time(22, 0))
        mem.add(text, infer=False, timestamp=when)
    coffee = mem.add("아침마다 커피를 마신다", infer=False,
                     timestamp=datetime.combine(today - timedelta(days=12), time(8, 0)))["results"][0]["id"]
    mem.update(coffee, "아침 커피를 디카페인으로 바꿨다")
    mem.delete(coffee)
    mem.memories.restore(coffee)
    gym = next(m["id"] for m in mem.get_all()["results"] if m["memory"] == "헬스장에 다닌다")
    mem.delete(gym)
    return coffee


DEMO_APP = "Claude Desktop"
# (tool, items that went out, outcome), oldest first: a conversation in Claude Desktop that looked
# the diarist up, asked for a day past (refused: reading entries is not granted) and suggested a memory.
_APP_CALLS = [
    ("search_memories", 5, connected_apps.ANSWERED),
    ("get_memory", 1, connected_apps.ANSWERED),
    ("list_memories", 12, connected_apps.ANSWERED),
    ("on_this_day", 0, connected_apps.REFUSED),
    ("search_memories", 3, connected_apps.ANSWERED),
    ("add_memory", 0, connected_apps.ANSWERED),
]
_APP_SUGGESTION = "다음 달에 첫 10km 대회에 나갈 계획이다"


def seed_demo_app_calls(mem) -> None:
    """Claude Desktop connected (with the defaults a new app gets) and made a few calls."""
    connected_apps.seen(mem.engine, DEMO_APP)
    for tool, items, outcome in _APP_CALLS:
        connected_apps.log_call(mem.engine, DEMO_APP, tool, items, outcome)


def seed_demo_app_suggestion(mem) -> None:
    """The memory Claude Desktop suggested in that conversation, waiting for the diarist."""
    app_suggestions.suggest(mem.engine, DEMO_APP, app_suggestions.checked_text(_APP_SUGGESTION))
