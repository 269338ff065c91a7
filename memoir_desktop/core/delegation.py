"""`via`: a facade method that is one call to a part's method of the same signature (memory.py).

Why not a written-out method for each: `Memoir` keeps a hundred public methods (mem0's names, the
app's, the CLI's), and written out, the facade was a corridor of wrappers longer than the parts. A
`via` line says the same thing — this method is that part's method — and keeps the part's signature
and docstring for help(), editors and the test that the API does not change.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

R = TypeVar("R")


class _Via:
    """Placed in the class body, becomes a method that calls `fn` on the part `self.<part>`, with
    `fn`'s signature and docstring (help(), the API test and editors show the real thing)."""

    def __init__(self, part: str, fn: Callable):
        self.part, self.fn = part, fn

    def __set_name__(self, owner, name: str) -> None:
        part, target = self.part, self.fn.__name__

        def method(self, *args, **kwargs):
            return getattr(getattr(self, part), target)(*args, **kwargs)

        functools.update_wrapper(method, self.fn)
        method.__name__, method.__qualname__ = name, f"{owner.__qualname__}.{name}"
        setattr(owner, name, method)


def via(part: str, fn: Callable[..., R]) -> Callable[..., R]:
    """A Memoir method that is one call to a part's method of the same signature."""
    return _Via(part, fn)  # type: ignore[return-value]  # replaced by a function when the class is made
