"""Crash campaign: a child process journals and memorises entries while being SIGKILLed at
random points; after each restart every acknowledged entry must be there, SQLite and the
vector index must agree, history must be consistent and interrupted jobs must resume.

    python -m tests.reliability.crash_campaign --trials 50      # prints a summary table
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from memoir_desktop.core import Memoir
    m = Memoir.open({home!r}, llm_base_url={url!r}, llm_model="fake", llm_max_retries=0)
    print("OPEN", flush=True)
    i = {start}
    while True:
        eid = m.journal(f"campaign entry {{i}}")
        print("ACK", eid, flush=True)
        m.process_jobs(limit=1)
        i += 1
""")


@dataclass
class Outcome:
    trials: int = 0
    acked: int = 0
    lost: int = 0
    resumed_jobs: int = 0
    index_repaired: int = 0
    failures: list[str] = field(default_factory=list)


def check_store(home: str, url: str, acked: set[int], outcome: Outcome) -> int:
    """Reopen, verify invariants, finish the work. Returns the number of entries present."""
    from memoir_desktop.core import Memoir

    with Memoir.open(home, llm_base_url=url, llm_model="fake", reconcile=False) as m:
        outcome.resumed_jobs += m.resumed_jobs
        present = {e["id"] for e in m.entries()}
        lost = acked - present
        outcome.lost += len(lost)
        if lost:
            outcome.failures.append(f"lost entries {sorted(lost)}")
        rep = m.reconcile()
        outcome.index_repaired += rep["added"] + rep["removed"] + len(rep["rebuilt"])
        m.process_jobs()
        active = {x["id"] for x in m.get_all()["results"]}
        indexed = m.vectors.ids(m.store.collection("me"))
        if active != indexed:
            outcome.failures.append(f"index differs: {len(active ^ indexed)} ids")
        for x in m.get_all(include_invalid=True)["results"]:
            events = [h["event"] for h in m.history(x["id"])]
            if not events or events[0] != "ADD":
                outcome.failures.append(f"history of {x['id']} starts with {events[:1]}")
        stuck = [j for j in m.jobs() if j["state"] not in ("done",)]
        if stuck:
            outcome.failures.append(f"{len(stuck)} jobs not done after resume")
        texts = [x["memory"] for x in m.get_all()["results"]]
        if len(texts) != len(set(texts)):
            outcome.failures.append("duplicate memories after resume")
        return len(present)


def run(trials: int, seed: int = 0, verbose: bool = True) -> Outcome:
    from tests.fakes.fake_llm import FakeLLM, echo_facts, slow

    rnd = random.Random(seed)
    llm = FakeLLM()
    # Slow, jittered replies so kills land inside LLM calls, commits and index updates alike.
    llm.on("save_facts", lambda req: slow(rnd.uniform(0, 0.05), echo_facts(req)))
    outcome = Outcome()
    home = tempfile.mkdtemp(prefix="memoir-crash-")
    acked: set[int] = set()
    start = 0
    try:
        for t in range(trials):
            proc = subprocess.Popen(
                [sys.executable, "-c", CHILD.format(root=str(ROOT), home=home, url=llm.url, start=start)],
                stdout=subprocess.PIPE, text=True,
            )
            deadline = None
            for line in proc.stdout:
                if line.startswith("OPEN"):
                    deadline = time.monotonic() + rnd.uniform(0.05, 1.5)
                elif line.startswith("ACK"):
                    acked.add(int(line.split()[1]))
                    start += 1
                if deadline and time.monotonic() >= deadline:
                    break
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            outcome.trials += 1
            check_store(home, llm.url, acked, outcome)
            if verbose:
                print(f"\rtrial {t + 1}/{trials}: {len(acked)} acknowledged, {outcome.lost} lost",
                      end="", file=sys.stderr, flush=True)
        outcome.acked = len(acked)
    finally:
        llm.close()
        if verbose:
            print(file=sys.stderr)
    return outcome


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    o = run(a.trials, a.seed)
    print("| fault | trials | entries acknowledged | lost | jobs resumed | index repairs | failures |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| SIGKILL while journaling / memorising | {o.trials} | {o.acked} | {o.lost} | {o.resumed_jobs} | "
          f"{o.index_repaired} | {len(o.failures)} |")
    for f in o.failures[:20]:
        print("  -", f)
    return 0 if not o.failures and not o.lost else 1


if __name__ == "__main__":
    raise SystemExit(main())
