"""The Qt-free memory engine. Everything a user can do is reachable from `Memoir`.

`Memoir` is imported lazily (PEP 562): the app's single-instance check and start-up window
import `core.config` and must not pay for the whole engine first.
"""

from __future__ import annotations

__all__ = ["Memoir", "backup", "config"]


def __getattr__(name: str):
    if name == "Memoir":
        from memoir_desktop.core.memory import Memoir

        return Memoir
    if name in ("backup", "config"):
        import importlib

        return importlib.import_module(f"memoir_desktop.core.{name}")
    raise AttributeError(name)
