"""LoCoMo (categories 1-4) through memoir's own pipeline: journal, process jobs, chat, judge.

    python -m memoir_desktop.eval.locomo --data PATH/locomo10.json [--conversations N]
        [--questions N] [--sessions N] [--runs R] [--full-context] [--no-graph]
        [--model M] [--judge-model M] [--out DIR] [--resume DIR]

Each conversation gets its own user_id in one temporary home per run. Every turn of every
session is one `journal()` call written as "<speaker>: <text>" and stamped with the session
date; jobs are processed after each turn. Each question is then asked through `chat` with
"now" set to the last ingested session's date, judged CORRECT/WRONG (Mem0-paper judge), and
scored with token F1 and BLEU-1 as in the LoCoMo paper. Results are reported per category
number with both names (LoCoMo's meaning and the label the Mem0 paper uses for that number).

`--questions N` keeps at most N questions per conversation, balanced over the categories.
`--sessions N` keeps only the first N sessions and the questions whose evidence lies in them
(for quick runs). LoCoMo is CC BY-NC 4.0: it is read from --data and never copied.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path

from memoir_desktop.eval.judge import require_llm
from memoir_desktop.eval.locomo_data import CATEGORY_NAMES, category_label, load_locomo
from memoir_desktop.eval.run_eval import (
    COMMON_RESUMABLE,
    EXIT_USAGE,
    Question,
    Unit,
    add_common_args,
    evaluate,
    options_from,
    resolve_out,
    take_balanced,
)

CATEGORIES = (1, 2, 3, 4)
_SESSION_OF = re.compile(r"^D(\d+):")


def _evidence_sessions(evidence: list[str]) -> set[int]:
    return {int(m.group(1)) for e in evidence if (m := _SESSION_OF.match(e))}


def build_units(conversations, *, max_conversations: int | None = None, max_questions: int | None = None,
                max_sessions: int | None = None) -> list[Unit]:
    units = []
    for conv in conversations[:max_conversations] if max_conversations else conversations:
        sessions = [s for s in conv.sessions if s.turns]
        if max_sessions:
            sessions = sessions[:max_sessions]
        if not sessions:
            continue
        kept = {s.index for s in sessions}
        asked_at = sessions[-1].date
        qs = []
        for i, qa in enumerate(conv.qa):
            if qa.category not in CATEGORIES or not str(qa.answer).strip():
                continue
            ev = _evidence_sessions(qa.evidence)
            if max_sessions and (not ev or not ev <= kept):
                continue
            qs.append(Question(qid=f"{conv.sample_id}-q{i:03d}", type=str(qa.category), question=qa.question,
                               gold=str(qa.answer), asked_at=asked_at))
        qs = take_balanced(qs, max_questions)
        units.append(Unit(unit_id=conv.sample_id, user_id=f"locomo-{conv.sample_id}",
                          sessions=[(s.date, [f"{t.speaker}: {t.text}" for t in s.turns if t.text.strip()])
                                    for s in sessions],
                          questions=qs, info={"speakers": [conv.speaker_a, conv.speaker_b]}))
    return units


def main(argv: list[str] | None = None) -> int:
    prog = "locomo"
    p = argparse.ArgumentParser(prog="python -m memoir_desktop.eval.locomo",
                                description="LoCoMo categories 1-4 through memoir's journal/chat pipeline.")
    p.add_argument("--data", help="path to locomo10.json (or a subset in the same format)")
    p.add_argument("--conversations", type=int, help="only the first N conversations")
    p.add_argument("--questions", type=int, help="at most N questions per conversation (balanced over categories)")
    p.add_argument("--sessions", type=int,
                   help="only the first N sessions, and the questions whose evidence lies in them")
    add_common_args(p)
    args = p.parse_args(argv)
    if not args.data and not args.resume:
        p.error("--data is required")
    msg = require_llm(prog)
    if msg:
        print(msg, file=sys.stderr)
        return EXIT_USAGE
    if args.data:
        args.data = str(Path(args.data).resolve())
    resolved = resolve_out(args, ("data", "conversations", "questions", "sessions") + COMMON_RESUMABLE, prog)
    if isinstance(resolved, int):
        return resolved
    out, meta = resolved
    try:
        conversations = load_locomo(args.data)
    except (OSError, ValueError, KeyError) as exc:
        print(f"{prog}: cannot read the LoCoMo file: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    units = build_units(conversations, max_conversations=args.conversations, max_questions=args.questions,
                        max_sessions=args.sessions)
    if not any(u.questions for u in units):
        print(f"{prog}: no questions selected", file=sys.stderr)
        return EXIT_USAGE
    meta.update(title="LoCoMo, categories 1–4", unit_name="conversation", type_head="category",
                type_order=[str(c) for c in CATEGORIES],
                type_labels={str(c): category_label(c) for c in CATEGORY_NAMES},
                dataset={"conversations": [u.unit_id for u in units], "sessions_limit": args.sessions,
                         "questions_per_conversation": args.questions},
                reference_note="Same benchmark as the paper (categories 1–4), but the paper used all ten "
                               "conversations and gpt-4o-mini for answers and judging; with fewer "
                               "conversations, another model or --sessions the numbers are not comparable "
                               "digit for digit.")
    logging.basicConfig(level=logging.WARNING)
    return evaluate(units, options_from(args), out, meta, prog=prog)


if __name__ == "__main__":
    sys.exit(main())
