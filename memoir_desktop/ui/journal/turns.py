"""A journal turn as the journal page runs it, and the reflection it shows with it.

A turn: the message saved on the writer at once (`on_saved`), the companion's answer read on the
reads pool (its LLM call must hold neither the writer nor a connection that writes), then the reply
saved and the turn's job released on the writer. An answer that fails still releases the job: the
turn is memorised without a reply.

Reflection at start and on Today: the letters of weeks and months that ended, and the follow-ups on
plans, each composed on the reads pool (the LLM may write them) and kept on the writer.
"""

from __future__ import annotations

from collections.abc import Callable

from memoir_desktop.core.changes import Changes
from memoir_desktop.core.companion.turns import TurnWritten, unanswered
from memoir_desktop.core.journal.entries import EntryChanged
from memoir_desktop.ui.tasks import call_if_alive

Callback = Callable | None


def chat(backend, text: str, on_done: Callback, on_error: Callback = None, on_saved: Callback = None,
         timestamp=None) -> None:
    """Save the message (on_saved(turn) as soon as it is on disk), then the answer (on_done(out)). Each
    step on the writer says what it wrote (TurnWritten.changes), which the writer announces."""
    def finished(done: TurnWritten) -> None:
        backend.writer.poke()
        if done.turn.get("error"):
            backend.llm_reachable_changed.emit(False if backend.llm_configured else None)
        elif done.turn.get("reply"):
            backend.llm_reachable_changed.emit(True)
        call_if_alive(on_done, done.turn)

    def answered(out: dict) -> None:
        backend.change(lambda m: m.companion.finish_turn(out), finished, on_error)

    def not_answered(turn: dict, exc: BaseException) -> None:
        backend.change(lambda m: m.companion.finish_turn(unanswered(turn)))
        call_if_alive(on_error, exc)

    def saved(begun: TurnWritten) -> None:
        turn = begun.turn
        call_if_alive(on_saved, turn)
        backend.read(lambda m: m.companion.answer_turn(turn), answered, lambda exc: not_answered(turn, exc))

    backend.change(lambda m: m.companion.begin_chat(text, timestamp=timestamp), saved, on_error)


def save_entry(backend, text: str, on_done: Callback = None, on_error: Callback = None, timestamp=None,
               private: bool = False) -> None:
    """Save an entry without asking the companion (its memories are made in the background). A private
    entry is only journaled: it is never sent to the LLM."""
    def saved(entry_id: int) -> None:
        backend.writer.poke()
        backend.changed.emit(Changes.of(entries=[entry_id]))
        call_if_alive(on_done, entry_id)

    backend.change(lambda m: m.journal.write(text, timestamp=timestamp, private=private), saved, on_error)


def ask_about(backend, entry_id: int, on_done: Callback, on_error: Callback = None) -> None:
    """Ask the companion about an entry saved without a reply: read the answer, then keep it."""
    def keep(out: dict) -> None:
        backend.change(lambda m: m.companion.save_reply(out), lambda kept: call_if_alive(on_done, kept.turn), on_error)

    backend.read(lambda m: m.companion.reply_text(entry_id), keep, on_error)


def followups(backend, on_done: Callable[[list[dict]], None]) -> None:
    """Due follow-ups: at once in their template words, then again once the companion has phrased the
    new ones (when one is connected; that can take a while, or not come at all)."""
    def kept_offline(found: list[dict]) -> None:
        call_if_alive(on_done, found)
        if backend.llm_configured and any(not f["phrased"] for f in found):
            backend.read(lambda m: m.reflection.due_followups(), keep)

    def keep(due: dict) -> None:
        backend.change(lambda m: m.reflection.keep_followups(due), on_done)

    backend.read(lambda m: m.reflection.due_followups(phrase=False),
                  lambda due: backend.change(lambda m: m.reflection.keep_followups(due), kept_offline))


def make_letters(backend, on_done: Callback = None) -> None:
    """The letters of the weeks and months that ended (at start): composed, then written."""
    def written(made: list[dict]) -> None:
        if made:
            backend.changed.emit(Changes.of(entries=[e["id"] for e in made]))
        call_if_alive(on_done, made)

    backend.read(lambda m: m.reflection.compose_letters(),
                  lambda composed: backend.change(lambda m: m.reflection.write_letters(composed), written))


def regenerate_letter(backend, entry_id: int, on_done: Callback = None, on_error: Callback = None) -> None:
    """Write a letter again: its new text composed, then put in place (the old one kept in its history)."""
    def written(changed: EntryChanged) -> None:  # the writer has emitted its Changes
        call_if_alive(on_done, changed.entry)

    backend.read(lambda m: m.reflection.recompose_letter(entry_id),
                  lambda text: backend.change(lambda m: m.journal.edit(entry_id, text), written, on_error), on_error)
