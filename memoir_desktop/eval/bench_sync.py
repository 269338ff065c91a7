"""Benchmark end-to-end encrypted sync (core/sync) on a ten-year journal.

    python -m memoir_desktop.eval.bench_sync [--entries 3650] [--memories 30000] [--target URL] [--json OUT]

A synthetic journal (one entry a day, Korean and English sentences; memories each with an ADD
history row and a source entry; a tenth of the entries edited once; a small graph) is written
straight into a new encrypted journal on "the laptop" (no LLM, no embedding there). Then:

* ``first push``: the laptop's first round: every object read, stamped, sealed into one snapshot
  and uploaded; the target's size after it;
* ``join``: a second computer joins with the passphrase: download, apply (merge into an empty
  journal), and the local search index built from what arrived (the e5 embedder over every entry
  and memory: most of the time). ``join, without the index`` is the same minus that last step;
* ``one new entry``: the laptop writes one entry with three memories (what its memorize job would
  make) and syncs; then the second computer syncs: time and bytes moved of each round;
* ``nothing new``: a round with no change on either side.

Prints a table (stdout) and progress (stderr). The target is a temporary folder unless
``--target`` names another place (WebDAV, S3). Everything else lives in temporary directories.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

PASS = "benchmark passphrase, not a secret"
KO = ["오늘은", "엄마와", "제주도", "바다에서", "수영을", "했다", "회사에서", "회의가", "길었다", "친구와", "저녁을",
      "먹었다", "비가", "와서", "집에", "있었다", "고양이가", "아팠다", "산책을", "갔다"]
EN = ["walked", "the", "dog", "along", "river", "met", "Daniel", "at", "gym", "finished", "report", "rain",
      "all", "afternoon", "cooked", "pasta", "with", "saffron", "called", "grandmother"]


def sentence(rng: random.Random, words: int) -> str:
    pool = KO if rng.random() < 0.5 else EN
    return " ".join(rng.choice(pool) for _ in range(words)).capitalize() + "."


def build(home: Path, entries: int, memories: int, seed: int = 7) -> None:
    """The laptop's journal, written in bulk (the app's tables, as its write paths fill them)."""
    from sqlmodel import Session

    from memoir_desktop.core import Memoir
    from memoir_desktop.core.storage.graph_store import GraphEdge, GraphNode
    from memoir_desktop.core.storage.models import Entry, EntryHistory, History, Memory, MemorySource
    from memoir_desktop.core.storage.store import text_hash

    rng = random.Random(seed)
    mem = Memoir.open(home, passphrase=PASS, reconcile=False)
    start = datetime(2016, 1, 1, 21, 0)
    with Session(mem.engine) as s:
        ids = []
        for d in range(entries):
            e = Entry(user_id="me", role="user", content=" ".join(sentence(rng, 12) for _ in range(5)),
                      created_at=start + timedelta(days=d))
            s.add(e)
            ids.append(e)
        s.flush()
        for e in ids[::10]:
            s.add(EntryHistory(entry_id=e.id, event="EDIT", old_content=e.content[:80], new_content=e.content,
                               created_at=e.created_at + timedelta(hours=1)))
        made = []
        for i in range(memories):
            e = ids[i * entries // memories]
            text = sentence(rng, 8) + f" ({i})"
            mid = str(uuid.UUID(int=rng.getrandbits(128)))
            s.add(Memory(id=mid, user_id="me", text=text, hash=text_hash(text), created_at=e.created_at,
                         updated_at=e.created_at, source_entry_id=e.id))
            made.append((mid, text, e))
        s.flush()  # no ORM relationship orders the inserts: the memories first
        for mid, text, e in made:
            s.add(History(memory_id=mid, event="ADD", new_memory=text, actor="llm", created_at=e.created_at,
                          entry_id=e.id))
            s.add(MemorySource(memory_id=mid, entry_id=e.id, created_at=e.created_at))
        s.flush()
        nodes = [GraphNode(user_id="me", name=f"thing {i}", type="thing", created_at=start) for i in range(entries // 4)]
        s.add_all(nodes)
        s.flush()
        for i in range(entries // 2):
            a, b = rng.sample(nodes, 2)
            s.add(GraphEdge(user_id="me", source_id=a.id, relation="knows", target_id=b.id, recorded_at=start,
                            source_entry_id=ids[i].id))
        s.commit()
    mem.close()


def size_of(place: Path) -> int:
    return sum(p.stat().st_size for p in place.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=3650)
    ap.add_argument("--memories", type=int, default=30000)
    ap.add_argument("--target", help="a sync place (default: a temporary folder)")
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--no-index", action="store_true",
                    help="leave the joining computer's search index to its next reconcile (measures the sync "
                         "alone; at full size the e5 index takes most of the join's time)")
    args = ap.parse_args(argv)
    from memoir_desktop.core import Memoir

    os.environ.setdefault("MEMOIR_PASSPHRASE", PASS)
    if args.no_index:
        from memoir_desktop.core.sync.engine import Round

        Round._follow = lambda self, done: None  # type: ignore[method-assign]  # index_pending keeps what is owed
    rows: list[tuple[str, float, int | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "place"
        folder.mkdir()
        url = args.target or folder.as_uri()
        t = time.perf_counter()
        build(root / "laptop", args.entries, args.memories)
        print(f"built {args.entries} entries, {args.memories} memories in {time.perf_counter() - t:.1f} s",
              file=sys.stderr)
        laptop = Memoir.open(root / "laptop", passphrase=PASS, reconcile=False)
        t = time.perf_counter()
        first = laptop.sync.run(url)
        rows.append(("first push (laptop)", time.perf_counter() - t, first.bytes_moved))
        target_size = size_of(folder) if not args.target else first.bytes_up
        rows.append(("target size after it", 0.0, target_size))

        marks: dict[str, float] = {}

        def progress(stage: str, done: int, total: int) -> None:
            marks.setdefault(stage, time.perf_counter())
            if stage == "index":
                marks.setdefault("index_start", time.perf_counter())
            print(f"\r{stage} {done}/{total}   ", end="", file=sys.stderr, flush=True)

        t = time.perf_counter()
        desk = Memoir.join(url, PASS, home=root / "desk", progress=progress)
        joined = time.perf_counter() - t
        print(file=sys.stderr)
        rows.append(("join (download, apply" + (")" if args.no_index else ", index)"), joined, None))
        if "index_start" in marks:
            rows.append(("join, without the index", marks["index_start"] - t, None))
        assert len(desk.journal.entries()) == args.entries, "the join lost entries"
        assert len(desk.get_all()["results"]) == args.memories, "the join lost memories"

        eid = laptop.journal.write("Started a new notebook today; the cover is dark green.")
        for text in ("Started a new notebook", "The notebook's cover is dark green", "Likes dark green"):
            laptop.add(text, infer=False, entry_id=eid)
        t = time.perf_counter()
        up = laptop.sync.run()
        rows.append(("one new entry: laptop round", time.perf_counter() - t, up.bytes_moved))
        t = time.perf_counter()
        down = desk.sync.run()
        rows.append(("one new entry: desk round", time.perf_counter() - t, down.bytes_moved))
        assert any(e["content"].startswith("Started a new notebook") for e in desk.journal.entries())
        t = time.perf_counter()
        idle = desk.sync.run()
        rows.append(("nothing new: a round", time.perf_counter() - t, idle.bytes_moved))
        laptop.close()
        desk.close()
    print(f"\nsync benchmark: {args.entries} entries, {args.memories} memories, target {args.target or 'a folder'}")
    print(f"{'what':34} {'seconds':>9} {'bytes':>12}")
    for what, secs, n in rows:
        print(f"{what:34} {secs:9.2f} {'' if n is None else n:>12}")
    print(f"load average: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    if args.json:
        Path(args.json).write_text(json.dumps([{"what": w, "seconds": round(s, 3), "bytes": n} for w, s, n in rows],
                                              indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
