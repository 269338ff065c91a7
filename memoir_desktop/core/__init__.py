"""The Qt-free memory engine. Everything a user can do is reachable from `Memoir`.

`Memoir` is imported lazily (PEP 562): the app's single-instance check and start-up window
import `core.config` and must not pay for the whole engine first.
"""

from __future__ import annotations

__all__ = ["Memoir", "backup", "config"]
_MODULES = {"backup": "memoir_desktop.core.archive.backup", "config": "memoir_desktop.core.config"}


def __getattr__(name: str):
    if name == "Memoir":
        # On access: importing one core module must not load the whole facade (and its services).
        from memoir_desktop.core.memory import Memoir

        return Memoir
    if name in _MODULES:
        import importlib  # with the line above: on access only

        return importlib.import_module(_MODULES[name])
    raise AttributeError(name)
