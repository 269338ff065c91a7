"""Twelve journal entries (six Korean, six English) through a real llama.cpp server, logged as a diarist
would see them: how memoir asks the model (the probe's mode), every job done or failed with its reason,
the memories stored, and the time each entry took.

    MEMOIR_TEST_MODELS=models python -m tests.tools.real_server_log qwen      # or smollm2
    MEMOIR_TEST_MODELS=models python -m tests.tools.real_server_log qwen --cache   # the server keeps prompts
                                                       # (it stopped once in twelve entries here)

Needs llama-cpp-python[server] and the model file (tests/tools/local_model.sh). Prints the log; nothing
is kept (the journal lives in a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ENTRIES = [
    ("ko", "오늘 회사에서 새 프로젝트 발표를 했다. 팀장님이 잘했다고 해서 기분이 좋았다."),
    ("ko", "여동생 지민이가 다음 달에 부산으로 이사 간다고 한다."),
    ("ko", "요즘 무릎이 아파서 러닝 대신 수영을 시작했다."),
    ("ko", "고양이 모카가 밥을 잘 안 먹어서 동물병원에 데려갔다."),
    ("ko", "매주 금요일 저녁에는 엄마랑 통화한다."),
    ("ko", "지난주에 본 영화 '파묘'가 생각보다 무서웠다."),
    ("en", "I started a new job at a bakery in Portland this week."),
    ("en", "My brother Sam is getting married in June."),
    ("en", "I'm allergic to peanuts, so I skipped the satay at the party."),
    ("en", "Went hiking on Mount Hood with Priya on Saturday."),
    ("en", "I've been learning Spanish on my phone every morning."),
    ("en", "Sold my old car and bought a bike for commuting."),
]


def run(label: str, model: Path, cache: bool = False) -> int:
    from memoir_desktop.core import Memoir
    from tests.real_llm.llama_server import start_working

    print(f"# {len(ENTRIES)} entries through llama.cpp with {model.name} ({datetime.now():%Y-%m-%d %H:%M}, "
          f"{os.cpu_count()} cores{', server started with --cache true' if cache else ''})\n")
    with tempfile.TemporaryDirectory() as tmp:
        server = start_working(model, log=Path(tmp) / "server.log", cache=cache)
        try:
            mem = Memoir.open(Path(tmp) / "journal", encrypt=False, llm_base_url=server.url,
                              llm_model=model.stem)
            calls: list[str] = []
            record = mem.metrics.record

            def each_call(stage, ms, prompt_tokens=0, completion_tokens=0):
                if prompt_tokens or completion_tokens:  # an LLM request (embeddings count no tokens)
                    calls.append(f"{stage} {ms / 1000:.1f} s ({prompt_tokens} read, {completion_tokens} written)")
                record(stage, ms, prompt_tokens, completion_tokens)

            mem.llm.client._sink = each_call  # what the client tells the metrics, shown here too
            try:
                report = mem.connection.check_connection(server.url, model.stem)
                print(f"connection test: mode {report.mode} ({report.mode_label}); first token "
                      f"{report.first_token_s or 0:.1f} s, {report.tokens_per_s or 0:.1f} tokens/s, an entry in "
                      f"about {report.seconds_per_entry or 0:.0f} s; verdicts {report.verdicts}\n")
                mem.jobs.process(idle=True)  # the app's writer at its start: the model's idle work
                totals = {"done": 0, "failed": 0, "waiting": 0, "memories": 0}
                for n, (lang, text) in enumerate(ENTRIES, 1):
                    before = {m["id"] for m in mem.get_all()["results"]}
                    started = time.monotonic()
                    calls.clear()
                    mem.journal.write(text)  # now, as a diarist writes today's entries
                    results = mem.jobs.process(limit=1)  # the entry's memories: what the diarist waits for
                    remembered = time.monotonic() - started
                    new = [m for m in mem.get_all()["results"] if m["id"] not in before]
                    for _ in range(6):  # what it queues after it: the graph's reading, the summary
                        done = mem.jobs.process(idle=True)  # as the app's writer does
                        results += done
                        if not done:
                            break
                    took = time.monotonic() - started
                    print(f"## {n:2d} [{lang}] {text}")
                    print(f"   memories in {remembered:5.1f} s ({len(new)} new memor{'y' if len(new) == 1 else 'ies'}); "
                          f"every job done in {took:5.1f} s")
                    # A job still waiting comes back from every process(): its last word is what counts.
                    results = list({r.get("id", i): r for i, r in enumerate(results)}.values())
                    for r in results:
                        why = (r.get("reason") or {}).get("text") or ""
                        state = r["state"]
                        totals[state if state in totals else "waiting"] += 1
                        print(f"   job {r.get('kind', '?')}: {state}" + (f" — {why}" if why else ""))
                    print(f"   calls: {'; '.join(calls)}")
                    for m in new:
                        print(f"   + {m['memory']}")
                    totals["memories"] += len(new)
                print(f"\ntotal: {totals['memories']} memories; jobs {totals['done']} done, {totals['failed']} "
                      f"failed, {totals['waiting']} waiting")
                for job in mem.jobs.all():
                    if job["state"] not in ("done", "cancelled"):
                        print(f"left: job {job['id']} {job['kind']} {job['state']}: {job['reason']['text']}")
            finally:
                mem.close()
        finally:
            server.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=["qwen", "smollm2"])
    parser.add_argument("--cache", action="store_true", help="start the server with --cache true")
    args = parser.parse_args(argv)
    from tests.real_llm.llama_server import MODELS

    folder = os.environ.get("MEMOIR_TEST_MODELS")
    if not folder or not (Path(folder) / MODELS[args.model]).is_file():
        print("set MEMOIR_TEST_MODELS to a folder holding the model (tests/tools/local_model.sh)", file=sys.stderr)
        return 2
    return run(args.model, Path(folder) / MODELS[args.model], cache=args.cache)


if __name__ == "__main__":
    raise SystemExit(main())
