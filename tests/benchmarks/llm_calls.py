"""LLM calls and tokens per journal turn, graph memory on and off, against the fake server.

    python -m tests.benchmarks.llm_calls [--turns 20] [--json OUT]

A home is wired to the test suite's fake OpenAI-compatible server; ``--turns`` entries are journaled
and processed, and ``metrics.summary()["per_turn"]`` gives LLM calls and tokens per turn (a turn is
one memorize job and the graph job that follows it; the once-per-endpoint capability probe and the summary job are counted apart). The
fake's graph rules find the user and one entity with a relation per entry, so the graph stage makes
the calls it makes with a real model. Token counts are what the fake reports (fixed per call), so
the call count is the meaningful number. Lives under tests/ because it needs the fake server; the
app never imports it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from memoir_desktop.core import Memoir
from tests.fakes.fake_llm import FakeLLM, tool

ENTRIES = [
    "오늘 민지랑 성수동 카페에서 디카페인 라떼를 마셨다. 요즘 카페인을 줄이는 중이다.",
    "I went bouldering after work and finally finished the blue route.",
    "회사에서 새 프로젝트를 맡았다. 팀장님이 기대가 크다고 하셨다.",
    "Mom called; she is planning a trip to Jeju next month.",
    "저녁으로 김치찌개를 끓였는데 너무 짰다.",
    "Started reading a novel by Han Kang. The first chapter was haunting.",
    "동생이 다음 주에 부산으로 이사 간다고 한다.",
    "My knee hurts a bit after yesterday's run, so I skipped the gym.",
    "주말에 북한산 등산을 했다. 날씨가 맑아서 정상에서 서울이 다 보였다.",
    "I've decided to learn Spanish before the Lisbon trip in October.",
    "고양이 보리가 오늘 병원에서 예방접종을 맞았다.",
    "Had a long call with Daniel about changing jobs.",
    "요즘 잠을 잘 못 잔다. 자기 전에 휴대폰을 덜 보기로 했다.",
    "Bought a new espresso machine; the first shots were sour.",
    "할머니 생신이라 가족들이 전주에 모였다.",
    "The pottery class was calming; I made a lopsided bowl.",
    "팀 회식에서 삼겹살을 먹었다. 술은 안 마셨다.",
    "I think I'm finally getting used to waking up at 6.",
    "친구 유나가 결혼 소식을 전했다. 내년 봄에 한다고 한다.",
    "Finished the quarterly report and felt relieved.",
]


def _graph_rules(server: FakeLLM) -> None:
    def entities(req):
        text = req["messages"][-1]["content"]
        word = next((w.strip(".,;:!?") for w in text.split()[1:] if w[:1].isupper()), "") or "journal"
        return tool({"entities": [{"name": "나", "type": "person"}, {"name": word, "type": "thing"}]})

    def relations(req):
        names = re.findall(r"^- (.+?) \(", req["messages"][-1]["content"], re.M)
        if len(names) < 2:
            return tool({"relations": []})
        return tool({"relations": [{"source": names[0], "relation": "mentions", "destination": names[1]}]})

    server.on("extract_entities", entities)
    server.on("extract_relations", relations)


def run(turns: int = 20, *, graph: bool = True) -> dict:
    server = FakeLLM()
    _graph_rules(server)
    try:
        with tempfile.TemporaryDirectory(prefix="memoir-bench-llm-") as tmp, \
                Memoir.open(Path(tmp) / "home", llm_base_url=server.url, llm_model="fake-model",
                            llm_max_retries=1, graph_enabled=graph) as mem:
            start = datetime(2025, 6, 1, 21, 0)
            t0 = time.perf_counter()
            for i in range(turns):
                mem.journal.write(ENTRIES[i % len(ENTRIES)], timestamp=start + timedelta(days=i))
                mem.jobs.process()
                print(f"\rjournal turn {i + 1}/{turns}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            elapsed = time.perf_counter() - t0
            summary = mem.metrics.summary()
            jobs = mem.jobs.all()
    finally:
        server.close()
    stages = {k: v for k, v in summary.items() if k != "per_turn"}
    llm = {k: v for k, v in stages.items() if k not in ("embedding", "search")}
    return {"graph": graph, "turns": turns, "per_turn": summary.get("per_turn", {}), "stages": stages,
            "requests": len(server.requests),
            "calls_per_entry": sum(v["count"] for v in llm.values()) / turns if turns else 0.0,
            "jobs": {s: sum(1 for j in jobs if j["state"] == s) for s in {j["state"] for j in jobs}},
            "elapsed_s": elapsed}


def render(results: list[dict]) -> str:
    lines = ["# LLM calls per journal turn (fake server)", "",
             "| graph memory | turns | LLM calls / turn | tokens / turn | all calls / entry | requests | jobs |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for r in results:
        pt = r["per_turn"]
        lines.append(f"| {'on' if r['graph'] else 'off'} | {r['turns']} | {pt.get('llm_calls', 0):.2f} | "
                     f"{pt.get('tokens', 0):.0f} | {r['calls_per_entry']:.2f} | {r['requests']} | "
                     f"{', '.join(f'{k} {v}' for k, v in sorted(r['jobs'].items()))} |")
    lines += ["", "Per turn: one memorize job (extraction, update) and the graph job that follows it. All calls / "
              "entry adds the summary refreshes and the one-time capability probe, divided by the entries journaled.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--turns", type=int, default=20)
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    results = [run(a.turns, graph=True), run(a.turns, graph=False)]
    print(render(results))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, ensure_ascii=False), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
