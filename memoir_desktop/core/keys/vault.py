"""The journal's key as the user manages it: whether the journal is encrypted, its passphrase and
recovery key (Settings → Privacy, `memoir-cli passphrase`). Opening a journal's key, and turning a
plain journal into an encrypted one, are archive/conversion.py's."""


from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.crypto import KeyFile

log = logging.getLogger(__name__)

DB_NAME = "memoir.db"


@dataclass
class JournalKey:
    """How this journal is opened: no key (plain), or the data key of its key file."""

    data_key: bytes | None
    key_file: KeyFile | None = None
    recovery_key: str | None = None  # set only when the key was just made: show it once
    via: str | None = None
    # Set by Memoir: with no passphrase the app lock goes too (it would only open with the recovery key).
    after_passphrase_removed: Callable[[], None] | None = field(default=None, repr=False, compare=False)
    # Set by Memoir: a changed passphrase starts a new sync key epoch (core/sync/epochs.py), so a lost
    # computer that knew the old one reads nothing written after.
    after_passphrase_changed: Callable[[str], None] | None = field(default=None, repr=False, compare=False)

    # -- what the user does with the key (Settings → Privacy, memoir-cli passphrase) ------------------

    @property
    def encrypted(self) -> bool:
        return self.data_key is not None

    @property
    def has_passphrase(self) -> bool:
        return self.key_file is not None and self.key_file.has_passphrase

    @property
    def keyring_keeps_key(self) -> bool:
        """The key file has a keyring slot (without asking the keyring: that can block)."""
        return self.key_file is not None and self.key_file.uses_keyring

    def set_passphrase(self, new: str, *, current: str | None = None) -> None:
        """Set or change the passphrase (the data key is rewrapped; the data is not re-encrypted).
        Changing one needs the current passphrase (or the recovery key): WrongPassphrase otherwise."""
        kf = self._file()
        if kf.has_passphrase:
            if not current:
                raise crypto.PassphraseNeeded("Enter the current passphrase to change it.")
            kf.unlock_secret(current)
        assert self.data_key is not None
        kf.set_passphrase(self.data_key, new)
        if self.after_passphrase_changed is not None:
            self.after_passphrase_changed(new)

    def remove_passphrase(self, *, current: str) -> None:
        """Open with the system keyring alone (PassphraseNeeded when it does not hold the key)."""
        kf = self._file()
        kf.unlock_secret(current)
        assert self.data_key is not None
        kf.remove_passphrase(self.data_key)
        if self.after_passphrase_removed is not None:
            self.after_passphrase_removed()

    def new_recovery_key(self) -> str:
        """A new recovery key (the previous one stops working): show it once."""
        assert self.data_key is not None
        return self._file().new_recovery_key(self.data_key)

    def check_passphrase(self, secret: str) -> bool:
        """Whether `secret` (passphrase or recovery key) opens this journal: the app lock's check."""
        try:
            self._file().unlock_secret(secret)
        except crypto.WrongPassphrase:
            return False
        return True

    def take_recovery_key(self) -> str | None:
        """The recovery key made with this journal, once (then forgotten): to print or save."""
        recovery, self.recovery_key = self.recovery_key, None
        return recovery

    def _file(self) -> KeyFile:
        if self.key_file is None:
            raise crypto.PassphraseNeeded("This journal is not encrypted: convert it first.")
        return self.key_file
