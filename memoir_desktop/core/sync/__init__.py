"""End-to-end encrypted sync of a journal through storage the user already has (a synced folder,
WebDAV, S3), with no server of memoir's own. See engine.py for a round, log_format.py for what the
target holds, merge.py for how two computers' changes become one journal."""

from memoir_desktop.core.sync.engine import check, dismiss, join, notices, run, status
from memoir_desktop.core.sync.errors import (
    AccessRefused,
    CannotSync,
    NewPassphrase,
    NotThisJournal,
    Offline,
    Removed,
    SyncError,
    TargetFull,
    WrongPassphrase,
)
from memoir_desktop.core.sync.report import Notice, Problem, Skipped, SyncReport, SyncStatus

__all__ = ["AccessRefused", "CannotSync", "NewPassphrase", "NotThisJournal", "Notice", "Offline", "Problem",
           "Removed", "Skipped", "SyncError",
           "SyncReport", "SyncStatus", "TargetFull", "WrongPassphrase", "check", "dismiss", "join", "notices",
           "run", "status"]
