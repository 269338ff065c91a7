"""The one place an exception becomes words on screen.

Core raises ValueError / RuntimeError subclasses (and its crypto errors) with sentences written for
the user; the file system's errors are said by what they mean for the diarist; anything else is a
defect of ours, and its text ("replace: dst should be string…") means nothing to a diarist, so it is
logged whole and the screen says so.
"""

from __future__ import annotations

import errno
import logging

from PySide6.QtCore import QCoreApplication

from memoir_desktop.core.inputs import NotFound
from memoir_desktop.core.keys.crypto import KeyError_

log = logging.getLogger(__name__)

# Python's own errors of a program that went wrong; never a sentence meant for the user.
_DEFECTS = (TypeError, AttributeError, NameError, AssertionError, IndexError, ZeroDivisionError,
            RecursionError, NotImplementedError, ImportError, UnicodeError)


def _tr(text: str) -> str:
    return QCoreApplication.translate("reasons", text)


def _disk_reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return _tr("the disk is full")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return _tr("memoir is not allowed to write or read there")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return _tr("that file or folder is not there")
    if exc.errno == errno.EISDIR:
        return _tr("that is a folder, not a file")
    if isinstance(exc, TimeoutError):
        return _tr("it took too long to answer")
    if isinstance(exc, ConnectionError):
        return _tr("the connection was lost")
    return exc.strerror or _tr("the file system refused")


def reason(exc: BaseException) -> str:
    """A short clause (no final full stop) saying why something did not work."""
    if isinstance(exc, OSError):
        return _disk_reason(exc)
    if isinstance(exc, NotFound):
        return _tr("it is no longer there")
    if isinstance(exc, (ValueError, RuntimeError, KeyError_)) and not isinstance(exc, _DEFECTS) and str(exc):
        return str(exc).rstrip(".")
    log.error("unexpected failure shown to the user", exc_info=(type(exc), exc, exc.__traceback__))
    return _tr("something unexpected went wrong inside memoir (the details are written to its log file)")
