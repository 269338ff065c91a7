"""The Qt-free memory engine. Everything a user can do is reachable from `Memoir`."""

from memoir_desktop.core import backup, config
from memoir_desktop.core.memory import Memoir

__all__ = ["Memoir", "backup", "config"]
