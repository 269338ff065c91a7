"""Render the screenshots in resources/screenshots with the demo journal organized by a scripted LLM.

    python -m tests.ui.demo_screenshots resources/screenshots

Dev tool, not a test: the fake OpenAI-compatible server from tests/fakes stands in for the
LLM, so the demo entries go through the real background writer and the journal shows real
memory-operation logs (and a proposal held for a protected memory). Without an LLM,
`memoir-desktop --screenshot DIR` renders the same views with the entries still waiting.
"""

from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["PYTHON_KEYRING_BACKEND"] = "tests.fakes.memory_keyring.MemoryKeyring"

from tests.fakes.fake_llm import FakeLLM, existing, new_exchange, new_facts, tool

FACTS = {
    "킥오프": ["회사에서 새 프로젝트의 리드를 맡았다"],
    "한강": ["한강에서 5km를 달렸다"],
    "지수": ["동생 지수의 생일에 가족과 저녁을 먹었다"],
    "디카페인": ["아침 커피를 디카페인으로 바꾼 뒤 잠을 잘 잔다", "고양이 모카가 새벽 5시에 깨운다"],
}


def extract(req):
    text = new_exchange(req)
    if "user:" not in text:
        return tool({"facts": []})
    return tool({"facts": next((facts for key, facts in FACTS.items() if key in text), [])})


def operations(req):
    known = existing(req)
    ops = []
    for i, fact in enumerate(new_facts(req)):
        same = next((k for k, t in known.items() if "리드" in t and "리드" in fact), None)
        cat = next((k for k, t in known.items() if "모카" in t and "모카" in fact), None)
        if same is not None:
            ops.append({"fact": i, "event": "NOOP", "id": same})
        elif cat is not None:
            ops.append({"fact": i, "event": "UPDATE", "id": cat, "text": "고양이 모카를 키운다 (새벽 5시에 깨운다)"})
        else:
            ops.append({"fact": i, "event": "ADD", "text": fact})
    return tool({"operations": ops})


# What the graph reads from each demo fact (keyword in the text → entities, relations): the README's
# graph picture is the app's own drawing of what these replies build, not a mock-up.
GRAPH = {
    "리드": ([("회사", "organization"), ("새 프로젝트", "event"), ("팀장님", "person")],
             [("나", "다닌다", "회사"), ("나", "이끈다", "새 프로젝트"), ("팀장님", "지명했다", "나"),
              ("새 프로젝트", "진행된다", "회사")]),
    "한강": ([("한강", "place"), ("러닝", "activity")],
             [("나", "한다", "러닝"), ("러닝", "장소", "한강")]),
    "지수": ([("지수", "person"), ("가족", "person"), ("대학교", "organization")],
             [("지수", "동생", "나"), ("지수", "다닌다", "대학교"), ("나", "저녁을 먹었다", "가족")]),
    "디카페인": ([("디카페인 커피", "food"), ("잠", "activity")],
              [("나", "마신다", "디카페인 커피"), ("디카페인 커피", "좋게 한다", "잠")]),
    "모카": ([("모카", "pet")], [("나", "키운다", "모카"), ("모카", "깨운다", "나")]),
}


def _graph_of(req) -> list:
    text = req["messages"][-1]["content"].split("Text:", 1)[-1].split("Entities:", 1)[0]
    return [g for key, g in GRAPH.items() if key in text]


def entities(req):
    found = [e for ents, _rels in _graph_of(req) for e in ents]
    return tool({"entities": [{"name": "나", "type": "person"}] + [{"name": n, "type": t} for n, t in found]})


def relations(req):
    return tool({"relations": [{"source": s, "relation": r, "destination": d}
                               for _ents, rels in _graph_of(req) for s, r, d in rels]})


LETTER = ("이번 주에는 한강을 따라 걷고 달린 날이 많았어요. 바람이 차가워졌다고 적은 날에도 밖으로 나갔죠.\n\n"
          "회사에서는 프로젝트 일정이 당겨져 야근한 날이 있었지만, 팀 분위기가 좋다고 쓴 걸 보면 버틸 힘이 "
          "남아 있었던 것 같아요. 지수의 이사를 돕기로 한 주말도 있었고요.\n\n"
          "다음 주에는 무릎이 괜찮은지 한 번 살펴보면 좋겠어요.")


def text(req):
    system = req["messages"][0]["content"]
    if "gentle question" in system:
        return "지수 씨 부산 이사는 잘 마쳤나요? 새 집은 어떤지 궁금해요."
    if "reflection letter" in system:
        return LETTER
    return "그랬군요. 오늘도 수고 많았어요."


def main(out_dir: str) -> int:
    llm = FakeLLM()
    llm.on("save_facts", extract)
    llm.on("memory_operations", operations)
    llm.on("extract_entities", entities)
    llm.on("extract_relations", relations)
    llm.on_text(text)
    os.environ["MEMOIR_LLM_BASE_URL"] = llm.url
    os.environ["MEMOIR_LLM_MODEL"] = "demo-model"
    from memoir_desktop.ui.main import run

    with tempfile.TemporaryDirectory(prefix="memoir-demo-") as home:
        try:
            return run(["memoir-desktop", "--screenshot", out_dir, "--home", home])
        finally:
            llm.close()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "resources/screenshots"))
