"""What a diarist reads when something fails: a sentence, never a programmer's message."""

from __future__ import annotations

import errno
import logging

import pytest

from memoir_desktop.core.inputs import InvalidInput, NotFound
from memoir_desktop.core.keys import crypto
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.shared.reasons import reason


@pytest.fixture
def english(qapp):
    i18n.install("en")
    yield
    i18n.install("ko")  # the suite's default (tests/ui/conftest.py)


@pytest.mark.parametrize("exc", [
    TypeError("replace: dst should be string, bytes or os.PathLike, not bool"),
    AttributeError("'NoneType' object has no attribute 'id'"),
    KeyError("category"),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    Exception(),
])
def test_a_defect_of_ours_is_logged_and_said_plainly(english, exc, caplog):
    with caplog.at_level(logging.ERROR):
        said = reason(exc)
    assert said.startswith("something unexpected went wrong inside memoir")
    assert str(exc) not in said or not str(exc)
    assert any(r.exc_info and r.exc_info[1] is exc for r in caplog.records)


@pytest.mark.parametrize("code, words", [
    (errno.ENOSPC, "the disk is full"),
    (errno.EACCES, "memoir is not allowed to write or read there"),
    (errno.ENOENT, "that file or folder is not there"),
])
def test_the_file_systems_errors_say_what_they_mean(english, code, words):
    assert reason(OSError(code, "raw system words")) == words


def test_core_sentences_are_shown_as_written(english):
    assert reason(InvalidInput("the entry is empty: nothing to save")) == "the entry is empty: nothing to save"
    assert reason(ValueError("backup.json is not a memoir export")) == "backup.json is not a memoir export"
    said = reason(crypto.WrongPassphrase("That passphrase does not open this journal. Nothing was changed.", "wrong"))
    assert said == "That passphrase does not open this journal. Nothing was changed"
    assert reason(NotFound(42, "entry")) == "it is no longer there"


def test_the_reason_is_said_in_korean(qapp):
    i18n.install("ko")
    assert reason(OSError(errno.ENOSPC, "No space left on device")) == "디스크 공간이 부족합니다"
    assert "예상하지 못한 문제" in reason(TypeError("x"))
