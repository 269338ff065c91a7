"""An MCP client searching in a loop while the app journals and memorises, on one encrypted journal.

    python -m tests.benchmarks.mcp_beside_app [--seconds 60] [--memories 1000] [--json OUT]

Two processes, as on a diarist's computer: `memoir-cli mcp` (started by the SDK's stdio client,
which calls `search_memories` back to back) and this process as the open app, which writes an entry
every half second and memorises it at once through the test suite's fake LLM server (every write
path of a real turn: the entry, its job, the facts, their vectors, the history). Printed: calls
answered per second, latency p50 / p95 / max, errors (any failed call, any "database is locked" on
either side), and whether the server found the memories the app made during the run. Lives under
tests/ because it needs the fake server; the app never imports it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import numpy as np
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import Implementation

from memoir_desktop.core import Memoir
from tests.benchmarks.llm_calls import ENTRIES
from tests.fakes.fake_llm import FakeLLM

PASS = "mcp beside the app"
QUERIES = ["요즘 뭐 마셔?", "where does my sister live?", "운동 뭐 해?", "what am I reading?", "고양이 이름",
           "work project", "주말에 뭐 했지?", "how do I sleep lately?"]


def _seed(home: Path, n: int) -> None:
    with Memoir.open(home, passphrase=PASS) as mem:
        for i in range(n):
            mem.add(f"{ENTRIES[i % len(ENTRIES)]} ({i})", infer=False)


def _app(home: Path, server: FakeLLM, stop: threading.Event, report: dict) -> None:
    try:
        with Memoir.open(home, passphrase=PASS, llm_base_url=server.url, llm_model="fake-model",
                         llm_max_retries=1) as mem:
            i = 0
            while not stop.is_set():
                mem.journal.write(f"오늘의 기록 {i}: 밤에 첼로 연습을 {i}분 했다", )
                for job in mem.jobs.process():
                    report["jobs"] += 1
                    if job.get("state") == "failed":
                        report["errors"].append(str(job.get("error")))
                report["entries"] += 1
                i += 1
                stop.wait(0.5)
            report["memories"] = len(mem.get_all()["results"])
    except Exception as exc:  # noqa: BLE001 - every failure is a result here
        report["errors"].append(f"{exc.__class__.__name__}: {exc}")


def run(seconds: float = 60, memories: int = 1000) -> dict:
    with tempfile.TemporaryDirectory(prefix="memoir-bench-mcp-") as tmp:
        home = Path(tmp) / "home"
        print(f"seeding {memories} memories…", file=sys.stderr)
        _seed(home, memories)
        llm = FakeLLM()
        stop = threading.Event()
        app = {"entries": 0, "jobs": 0, "memories": 0, "errors": []}
        env = {**os.environ, "MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASS}
        params = StdioServerParameters(command=sys.executable, args=["-m", "memoir_desktop.cli", "mcp"], env=env)
        latencies: list[float] = []
        errors: list[str] = []

        async def client():
            async with stdio_client(params) as (r, w), ClientSession(r, w, client_info=Implementation(
                    name="benchmark", version="1")) as s:
                await s.initialize()
                await s.call_tool("search_memories", {"query": "warm up"})  # the server's indexes load
                writer = threading.Thread(target=_app, args=(home, llm, stop, app), daemon=True)
                writer.start()
                end = time.perf_counter() + seconds
                k = 0
                while time.perf_counter() < end:
                    t = time.perf_counter()
                    out = await s.call_tool("search_memories", {"query": QUERIES[k % len(QUERIES)], "limit": 10})
                    latencies.append((time.perf_counter() - t) * 1000)
                    if out.is_error:
                        errors.append(str(out.content)[:200])
                    k += 1
                stop.set()
                await anyio.to_thread.run_sync(writer.join, 120)
                late = await s.call_tool("search_memories", {"query": "첼로 연습", "limit": 5})
                return "첼로" in str(late.structured_content)

        try:
            found_new = anyio.run(client)
        finally:
            llm.close()
    lat = np.array(latencies)
    locked = [e for e in errors + app["errors"] if "locked" in e.lower()]
    return {"seconds": seconds, "seeded": memories, "calls": len(lat), "calls_per_s": round(len(lat) / seconds, 1),
            "p50_ms": round(float(np.percentile(lat, 50)), 1), "p95_ms": round(float(np.percentile(lat, 95)), 1),
            "max_ms": round(float(lat.max()), 1), "call_errors": len(errors), "app_errors": len(app["errors"]),
            "database_locked": len(locked), "app_entries": app["entries"], "app_jobs": app["jobs"],
            "server_found_new_memories": found_new, "error_samples": (errors + app["errors"])[:3]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args(argv)
    result = run(args.seconds, args.memories)
    print(f"{result['calls']} search_memories calls in {result['seconds']:.0f} s ({result['calls_per_s']}/s) "
          f"while the app journaled {result['app_entries']} entries and ran {result['app_jobs']} jobs")
    print(f"latency p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, max {result['max_ms']} ms")
    print(f"errors: calls {result['call_errors']}, app {result['app_errors']}, 'database is locked' "
          f"{result['database_locked']}; the server found what the app memorised during the run: "
          f"{result['server_found_new_memories']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if not (result["call_errors"] or result["app_errors"]) and result["server_found_new_memories"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
