"""The two ways the UI runs a core operation (Anki's CollectionOp and QueryOp):

- `CoreOp` on the writer (`BackgroundWriter`): anything that changes the journal. When it returns,
  the Changes its result carries are emitted as `changed`, so every screen refreshes what it shows.
- `QueryOp` on the reads pool, on database connections that cannot write (`Memoir.read_only`): a write
  attempted there raises, so no write can slip onto the pool that runs beside the writer.

An operation is a function of the `Memoir` (`lambda mem: mem.journal.in_trash()`); its result reaches
`on_done` on the UI thread, an exception `on_error` (or the status bar's error signal).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from memoir_desktop.core.changes import Changes
from memoir_desktop.ui.tasks import call_if_alive

if TYPE_CHECKING:
    from memoir_desktop.core.memory import Memoir
    from memoir_desktop.ui.async_memoir import AsyncMemoir

R = TypeVar("R")
Op = Callable[["Memoir"], R]


def changes_of(result: object) -> Changes:
    """The Changes a core result carries (its typed `changes`), or none. An import's counts still come as
    a dict (archive/service.py), so a dict's "changes" is read too."""
    found = result.get("changes") if isinstance(result, dict) else getattr(result, "changes", None)
    if isinstance(found, Changes):
        return found
    return Changes.from_dict(found) if isinstance(found, dict) else Changes()


class QueryOp(Generic[R]):
    def __init__(self, backend: AsyncMemoir, op: Callable[[Memoir], R]):
        self.backend, self.op = backend, op

    def run(self, on_done: Callable[[R], object] | None = None,
            on_error: Callable[[BaseException], object] | None = None) -> None:
        mem = self.backend.mem

        def work() -> R:
            with mem.read_only():
                return self.op(mem)

        self.backend.reads.submit(work, on_done, on_error)


class CoreOp(Generic[R]):
    def __init__(self, backend: AsyncMemoir, op: Callable[[Memoir], R], *, poke: bool = False):
        """`poke`: the operation queued a job (an entry edited, a batch resumed): the writer looks now."""
        self.backend, self.op, self.poke = backend, op, poke

    def run(self, on_done: Callable[[R], object] | None = None,
            on_error: Callable[[BaseException], object] | None = None) -> None:
        backend, mem = self.backend, self.backend.mem

        def done(result: R) -> None:
            if self.poke:
                backend.writer.poke()
            changes = changes_of(result)
            if changes:
                backend.changed.emit(changes)
            call_if_alive(on_done, result)

        backend.writer.submit(lambda: self.op(mem), done, on_error)
