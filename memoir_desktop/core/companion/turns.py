"""The companion: its answer to a message from what memoir remembers (Mem0's read path), and the
turn around it.

A turn is saved before it is answered: the message and its memorize job are committed together
(`begin_chat`), the answer is asked for with no lock held (`answer_chat`), then the reply joins the
turn and the job is released to run (`Journal.close_turn`). A turn whose answer never comes is
memorised without it (jobs/queue.py). The answer call never gates memorisation.

Threading rule: `begin_chat` writes (the writer); `answer_chat` and `reply_to` call the LLM and then
write the reply in a short transaction under the write lock, so they run on the writer too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from memoir_desktop.core import temporal
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.companion import grounding
from memoir_desktop.core.inputs import InvalidInput, clean_reply, clean_text, parse_time
from memoir_desktop.core.journal.entries import Journal
from memoir_desktop.core.llm import Gate, LLMError, LLMUnavailable, PrivateRefused, prompts
from memoir_desktop.core.pipeline.memorize import latest_summary, recent_context
from memoir_desktop.core.script import has_hangul, language_of
from memoir_desktop.core.search import Retriever, assemble, route
from memoir_desktop.core.search.floor import floor_for
from memoir_desktop.core.storage.models import Memory, pk
from memoir_desktop.core.storage.store import memory_dict

log = logging.getLogger(__name__)

PROFILE_SIZE = 8  # memories always in the answer's context (the hot path), the user's own first


@dataclass(frozen=True)
class TurnWritten:
    """A step of a turn done on the writer (the message kept, the reply kept, the job released): the turn
    as it stands, for the next step, and the entries it wrote."""

    turn: dict
    changes: Changes


def new_turn(entry_id: int | None = None, job_id: int | None = None) -> dict:
    return {"reply": None, "entry_id": entry_id, "reply_entry_id": None, "job_id": job_id,
            "memories": [], "error": None, "error_kind": None}


def unanswered(turn: dict) -> dict:
    """A begun turn whose answer never came, ready for `finish_turn` (its job runs without a reply)."""
    out = {k: v for k, v in turn.items() if k not in ("text", "when")}
    return {**out, "_when": turn["when"], "reply": None}


def llm_message(exc: Exception) -> str:
    """What a failed LLM step says (kept on the job, shown in the app's words by the ui)."""
    if isinstance(exc, LLMUnavailable):
        said = str(exc).rstrip(". ")  # its own sentence (llm/errors.py explain) ends with a full stop
        return f"LLM unavailable: {said}. The entry is saved; its memories will be made when the LLM is back."
    return f"LLM reply unusable: {exc}"


class Companion:
    def __init__(self, engine, journal: Journal, retriever: Retriever, metrics, *, llm: Callable[[], Gate],
                 settings: Callable, followups: Callable):
        self.engine, self.journal, self.retriever, self.metrics = engine, journal, retriever, metrics
        self._llm, self._settings, self._followups = llm, settings, followups

    # -- a turn -------------------------------------------------------------------------

    def chat(self, text: str, *, user_id: str = "me", timestamp=None, remember: bool = True) -> dict:
        """Journal the message, answer from memory, journal the answer, memorise the exchange.
        remember=False answers without keeping the exchange (evaluation questions must not become
        memories or change the next question's context)."""
        if not remember:
            out = new_turn()
            self._answer_into(out, clean_text(text), user_id, parse_time(timestamp))
            return out
        return self.answer_chat(self.begin_chat(text, user_id=user_id, timestamp=timestamp).turn)

    def begin_chat(self, text: str, *, user_id: str = "me", timestamp=None) -> TurnWritten:
        """Commit the user's message and its memorize job together, the job waiting for the answer (so
        extraction sees the whole exchange). Returns the turn for answer_chat."""
        when = parse_time(timestamp)
        written = self.journal.commit(text, user_id=user_id, timestamp=when, source="chat", job_state="waiting")
        out = new_turn(entry_id=written.entry.id, job_id=written.job_id)
        out.update(text=written.entry.content, user_id=user_id, when=when.isoformat(),
                   backdated=timestamp is not None)
        if not self._llm().configured:
            self.journal.index_now(user_id, pk(written.entry))
        return TurnWritten(out, written.changes)

    def answer_chat(self, turn: dict) -> dict:
        """The companion's answer to a begun turn; the reply joins the turn's job, which then runs (also
        when answering failed: the turn is memorised without a reply)."""
        try:
            out = self.answer_turn(turn)
        except BaseException:
            self.finish_turn(unanswered(turn))
            raise
        return self.finish_turn(out).turn

    def answer_turn(self, turn: dict) -> dict:
        """The answer alone (a read and an LLM call, no write): the app asks for it on its reads pool,
        then hands the result to `finish_turn` on the writer."""
        out = dict(turn)
        out["_when"] = out.pop("when")
        text, user_id = out.pop("text"), out["user_id"]
        self._answer_into(out, text, user_id, datetime.fromisoformat(out["_when"]))
        return out

    def finish_turn(self, out: dict) -> TurnWritten:
        """The turn's end, written: the reply (if one came) saved after the message, the job released."""
        out = dict(out)
        when, user_id, backdated = datetime.fromisoformat(out.pop("_when")), out.pop("user_id"), out.pop("backdated")
        reply = clean_reply(out["reply"]) if out["reply"] else None
        out["reply_entry_id"] = self.journal.close_turn(user_id, out["entry_id"], out["job_id"], reply,
                                                        when if backdated else None)
        return TurnWritten(out, Changes.of(entries=[out["entry_id"], out["reply_entry_id"]]))

    def reply_to(self, entry_id: int) -> dict:
        """Ask the companion, later, about an entry saved without a reply. The reply is journalled after
        it; it is the companion's words, so it makes no memory of its own."""
        return self.save_reply(self.reply_text(entry_id)).turn

    def reply_text(self, entry_id: int) -> dict:
        """The answer about an entry (a read and an LLM call, no write; see reply_to)."""
        e = self.journal.entry(entry_id)
        if e["deleted_at"]:
            raise InvalidInput("this entry is in the trash: restore it first")
        if e["private"]:
            raise InvalidInput("this entry is private, so it is never sent to the AI: share it again to ask "
                               "the companion about it")
        out = new_turn(entry_id=entry_id)
        self._answer_into(out, e["content"], e["user_id"], datetime.fromisoformat(e["created_at"]))
        return {**out, "_entry": e}

    def save_reply(self, out: dict) -> TurnWritten:
        """The reply of `reply_text` journalled after its entry (written)."""
        out = dict(out)
        e = out.pop("_entry")
        if out["reply"]:
            # On the entry's own day, just after it (a reply to a back-dated entry stays on that day).
            when = datetime.fromisoformat(e["created_at"]) + timedelta(seconds=1)
            written = self.journal.commit(clean_reply(out["reply"]), user_id=e["user_id"], role="assistant",
                                         source="chat", memorize=False, timestamp=when, reply_to=e["id"])
            out["reply_entry_id"] = written.entry.id
        return TurnWritten(out, Changes.of(entries=[out.get("reply_entry_id")]))

    # -- the answer ---------------------------------------------------------------------

    def context_for(self, query: str, *, user_id: str = "me", now: datetime | None = None):
        """Hot path (profile, summary) + routed cold path, within the token budget."""
        settings, llm = self._settings(), self._llm()
        now = now or datetime.now()
        r = route(query, graph_enabled=settings.graph_enabled)
        start = time.perf_counter()
        cold = self.retriever.cold_path(user_id, query, r, limit=settings.similar_memories, now=now)
        if r.retrieve:
            self.metrics.record("search", (time.perf_counter() - start) * 1000)
        with Session(self.engine) as s:
            summ = latest_summary(s, user_id)
            profile_rows = s.exec(
                select(Memory).where(col(Memory.user_id) == user_id, col(Memory.state) == "active")
                .order_by(col(Memory.user_edited).desc(), col(Memory.updated_at).desc()).limit(PROFILE_SIZE)
            ).all()
        profile = [memory_dict(m) for m in profile_rows]
        # What the answer may carry is the gate's decision: private entries (episodes) and memories
        # only private entries support are left out here, before the context is written.
        cleared = llm.admit("answer", entries=cold.episodes, memories=[*cold.memories, *profile])
        ctx = assemble(summary=summ.text if summ else "", profile=cleared.keep_memories(profile),
                       retrieved=cleared.keep_memories(cold.memories), relations=cold.relations,
                       episodes=cleared.keep_entries(cold.episodes), budget=settings.context_token_budget)
        ctx.route, ctx.skipped, ctx.left_out = r, cold.skipped, cleared.left_out
        return ctx

    def _answer_into(self, out: dict, text: str, user_id: str, when: datetime) -> None:
        try:
            out["reply"] = self._answer(text, user_id, when, out["entry_id"], out)
        except LLMError as exc:
            out["error"] = llm_message(exc)
            out["error_kind"] = ("not_configured" if not self._llm().configured else
                                 "unavailable" if isinstance(exc, LLMUnavailable) else "bad_reply")
            out["cause"] = exc.kind  # in one word (llm/errors.py): what the screen says, in its language

    def _answer(self, text: str, user_id: str, when: datetime, entry_id: int | None, out: dict) -> str:
        llm = self._llm()
        with Session(self.engine) as s:
            cleared, recent = recent_context(llm, "answer", s, user_id, entry_id or 2**62,
                                             self._settings().recent_messages,
                                             also=[entry_id] if entry_id is not None else [])
        if entry_id is not None and not cleared.entry_ok(entry_id):
            raise PrivateRefused("this entry is private: it is never sent to the AI")
        ctx = self.context_for(text, user_id=user_id, now=when)
        if entry_id is not None:  # a kept turn (not an evaluation question): plans to ask about, gently
            plans = self._followups(user_id=user_id, now=when, phrase=False)[:3]
            ctx.followups = llm.admit("answer", memories=[f["memory_id"] for f in plans]).keep_memories(
                [{**f, "id": f["memory_id"]} for f in plans])
            out["followups"] = [f["memory_id"] for f in ctx.followups]
        out["route"] = ctx.route.reason if ctx.route else ""
        # Private entries the search would have brought to this answer. Those of the recent stretch are
        # not counted: the diarist chose to keep them out, and saying so after every turn is noise.
        out["left_out"] = ctx.left_out
        lang, asking = language_of(text), grounding.asks_about_me(text)
        if asking and llm.configured and not self._keep_what_bears(ctx, text, user_id):
            # Nothing the diarist wrote answers this: say so rather than ask the model to guess.
            out["memories"], out["grounded"] = [], "nothing to go on"
            return grounding.NOTHING_YET[lang]
        out["memories"] = ctx.all_items
        out["context_tokens"] = ctx.tokens
        system = prompts.ANSWER_SYSTEM.format(today=when.date().isoformat(),
                                              weekday=temporal.WEEKDAY_NAMES[when.weekday()],
                                              language=prompts.LANGUAGE_NAMES[lang], context=ctx.render())
        msgs = [{"role": "system", "content": system}]
        msgs += [{"role": e.role, "content": e.content} for e in recent]
        msgs.append({"role": "user", "content": text})  # the question last: small models answer what they read last
        reply = llm.complete(cleared, msgs, temperature=0.5)
        invented = grounding.unsupported(reply, [text, system, *(e.content for e in recent)], question=asking)
        if invented:
            # It stated what it was never told (a name, a number, for a question an answer): an honest reply.
            log.info("a reply stated %d thing(s) not in what the companion was given; replaced", len(invented))
            out["grounded"] = "replaced"
            return (grounding.NOTHING_YET if asking else grounding.HONEST_REPLY)[lang]
        return reply

    def _keep_what_bears(self, ctx, text: str, user_id: str) -> bool:
        """For a question about the diarist: only the memories and past entries that bear on it stay in
        the context (grounding.bearing); True when anything does."""
        doc_freq = self.retriever.store.bm25(user_id).doc_freq
        floor = floor_for(self.retriever.store.embedder.name)

        def close(item: dict) -> bool:
            """Found by meaning alone. In the question's own language a paraphrase must be as near as what
            the search field would list. In another language no word can be shared and every pair scores
            alike (e5-small: 0.75-0.84, search/floor.py; a true match stood only 0.014 above the next in a
            journal of 32), so the search's best stands and the reply is checked against it."""
            score = ((item.get("explain") or {}).get("dense") or {}).get("score")
            asked_korean, memory_korean = has_hangul(text), has_hangul(item.get("memory"))
            if floor is None or score is None or asked_korean != memory_korean:
                return True
            return float(score) >= floor.for_pair(asked_korean, memory_korean).minimum

        ctx.memories = grounding.bearing(text, ctx.memories, doc_freq, close, entries=True)
        ctx.profile = grounding.bearing(text, ctx.profile, doc_freq, lambda _m: False)
        ctx.episodes = grounding.bearing(text, ctx.episodes, doc_freq, lambda _m: False)
        return bool(ctx.memories or ctx.profile or ctx.episodes or ctx.relations)
