"""The journal's data key, and the ways it is kept: the OS keyring, a passphrase, a recovery key.

One random 256-bit *data key* encrypts everything that holds the user's words (the SQLCipher
database, its backups). It is never stored as such. The key file beside the database
(``memoir.key``, JSON) holds only copies of it *wrapped* (AES-256-GCM) by key-encryption keys:

* ``keyring``: a random key kept in the OS keyring under this journal's id, so the user's own
  login opens the journal without a prompt;
* ``passphrase``: a key derived from the passphrase with Argon2id (salt and cost in the file),
  the way to open the journal on another computer or after the keyring is lost;
* ``recovery``: a key derived from a random recovery key shown once at creation.

plus a verifier (an HMAC of a constant under the data key) so a wrong passphrase is told apart
from a damaged database before anything is opened. Changing the passphrase rewraps the data key;
the data is not re-encrypted. ``MEMOIR_PASSPHRASE`` supplies the passphrase for headless use and
is never written anywhere.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import secrets as pysecrets
import uuid
from dataclasses import dataclass
from pathlib import Path

import keyring
from argon2.low_level import Type, hash_secret_raw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from keyring.errors import KeyringError, NoKeyringError

from memoir_desktop.core.keys.private_files import write_private
from memoir_desktop.core.keys.secrets import keyring_available  # one answer for the API key and the data key

log = logging.getLogger(__name__)

KEY_FILE = "memoir.key"
FORMAT, VERSION = "memoir-key", 1
SERVICE = "memoir-desktop"
ENV_PASSPHRASE = "MEMOIR_PASSPHRASE"
# OWASP's Argon2id guidance is at least m=19 MiB, t=2; a journal opens rarely, so be generous.
ARGON2 = {"time_cost": 3, "memory_kib": 64 * 1024, "parallelism": 4}
MIN_PASSPHRASE = 8
_VERIFIER = b"memoir-desktop data key verifier v1"
_RECOVERY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


class KeyError_(Exception):
    """Base of the key problems, each with a sentence fit to show the user and a `code` a screen
    can translate: wrong, no_keyring (creating without a keyring), locked (app lock), keyring_missing,
    passphrase_only, too_short, damaged."""

    def __init__(self, message: str, code: str = ""):
        super().__init__(message)
        self.code = code


class WrongPassphrase(KeyError_):
    """The passphrase (or recovery key) does not open this journal. Nothing was changed."""


class PassphraseNeeded(KeyError_):
    """The journal cannot be opened (or created) without a passphrase; the message says why."""


class KeyFileDamaged(KeyError_):
    """The key file is missing or unreadable: the database cannot be decrypted without it."""


@dataclass
class Unlocked:
    """An opened key file: the data key and how it was obtained."""

    data_key: bytes
    via: str  # keyring | passphrase | recovery
    journal_id: str


def key_path(home: Path) -> Path:
    return home / KEY_FILE


def is_encrypted(home: Path) -> bool:
    return key_path(home).exists()


def env_passphrase() -> str | None:
    return os.environ.get(ENV_PASSPHRASE) or None


# -- wrapping -------------------------------------------------------------------------------

def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"))


def _wrap(kek: bytes, data_key: bytes, label: str) -> dict:
    nonce = os.urandom(12)
    return {"nonce": _b64(nonce), "wrapped": _b64(AESGCM(kek).encrypt(nonce, data_key, label.encode()))}


def _unwrap(kek: bytes, slot: dict, label: str) -> bytes | None:
    try:
        return AESGCM(kek).decrypt(_unb64(slot["nonce"]), _unb64(slot["wrapped"]), label.encode())
    except (InvalidTag, KeyError, ValueError):
        return None


def _argon2(passphrase: str, salt: bytes, params: dict) -> bytes:
    return hash_secret_raw(passphrase.encode("utf-8"), salt, time_cost=int(params["time_cost"]),
                           memory_cost=int(params["memory_kib"]), parallelism=int(params["parallelism"]),
                           hash_len=32, type=Type.ID)


def _recovery_kek(recovery_key: str, salt: bytes) -> bytes:
    # The recovery key is 160 random bits: a slow KDF adds nothing, HKDF-like SHA-256 suffices.
    return hmac.new(salt, normalize_recovery(recovery_key).encode("ascii"), hashlib.sha256).digest()


def verifier(data_key: bytes) -> str:
    return _b64(hmac.new(data_key, _VERIFIER, hashlib.sha256).digest())


def new_recovery_key() -> str:
    """32 characters from an unambiguous alphabet (160 bits), in groups of four."""
    chars = "".join(pysecrets.choice(_RECOVERY_ALPHABET) for _ in range(32))
    return "-".join(chars[i:i + 4] for i in range(0, 32, 4))


def normalize_recovery(text: str) -> str:
    return "".join(c for c in text.upper() if c.isalnum())


def looks_like_recovery_key(text: str) -> bool:
    """The 32 characters of a recovery key as people copy or type them: grouped by dashes, by spaces
    or not at all, in any case, with stray spaces. (A passphrase is still tried first.)"""
    clean = normalize_recovery(text)
    return (len(clean) == 32 and all(c in _RECOVERY_ALPHABET for c in clean)
            and all(c.isalnum() or c == "-" or c.isspace() for c in text))


# -- the key file ---------------------------------------------------------------------------

class KeyFile:
    """The wrapped copies of one journal's data key. Changes are written atomically."""

    def __init__(self, home: Path, data: dict):
        self.home = home
        self.data = data

    @property
    def journal_id(self) -> str:
        return self.data["journal_id"]

    @property
    def account(self) -> str:
        return f"journal-{self.journal_id}"

    @property
    def has_passphrase(self) -> bool:
        return "passphrase" in self.data

    @property
    def uses_keyring(self) -> bool:
        return "keyring" in self.data

    # creation --------------------------------------------------------------------------

    @classmethod
    def create(cls, home: Path, *, passphrase: str | None = None, use_keyring: bool = True
               ) -> tuple[KeyFile, bytes, str]:
        """A new data key, wrapped by the keyring (when there is one) and/or a passphrase, and a
        recovery key. Returns (key file, data key, recovery key: show it once).
        Raises PassphraseNeeded when neither the keyring nor a passphrase can keep the key."""
        if use_keyring and not keyring_available():
            use_keyring = False
        if not use_keyring and not passphrase:
            raise PassphraseNeeded(
                "No system keyring is available on this computer to keep the journal's key, so the "
                f"journal needs a passphrase (set {ENV_PASSPHRASE} for headless use).", "no_keyring")
        if passphrase is not None:
            check_passphrase(passphrase)
        data_key = os.urandom(32)
        kf = cls(home, {"format": FORMAT, "version": VERSION, "journal_id": uuid.uuid4().hex,
                        "cipher": "sqlcipher4", "verifier": verifier(data_key)})
        if use_keyring:
            kf._set_keyring(data_key)
        if passphrase:
            kf._set_passphrase(data_key, passphrase)
        recovery = new_recovery_key()
        salt = os.urandom(16)
        kf.data["recovery"] = {"salt": _b64(salt), **_wrap(_recovery_kek(recovery, salt), data_key, "recovery")}
        kf.save()
        return kf, data_key, recovery

    @classmethod
    def adopt(cls, home: Path, data_key: bytes, *, passphrase: str, recovery_slot: dict | None = None,
              use_keyring: bool = True) -> KeyFile:
        """The key file of a journal made on another computer and joined here (core/sync): the same
        data key, wrapped by the passphrase (and this computer's keyring), its recovery slot copied
        (the same recovery key opens it). Its own journal id: this computer's keyring entry."""
        kf = cls(home, {"format": FORMAT, "version": VERSION, "journal_id": uuid.uuid4().hex,
                        "cipher": "sqlcipher4", "verifier": verifier(data_key)})
        if use_keyring and keyring_available():
            try:
                kf._set_keyring(data_key)
            except (NoKeyringError, KeyringError, RuntimeError):
                kf.data.pop("keyring", None)
        kf._set_passphrase(data_key, passphrase)
        if recovery_slot:
            kf.data["recovery"] = dict(recovery_slot)
        kf.save()
        return kf

    @classmethod
    def load(cls, home: Path) -> KeyFile:
        path = key_path(home)
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError as exc:
            raise KeyFileDamaged(f"{KEY_FILE} is missing: the encrypted journal cannot be opened "
                                 "without it") from exc
        except (OSError, ValueError) as exc:
            raise KeyFileDamaged(f"{KEY_FILE} is unreadable ({exc.__class__.__name__})") from exc
        if data.get("format") != FORMAT or "verifier" not in data:
            raise KeyFileDamaged(f"{KEY_FILE} is not a memoir key file")
        if int(data.get("version", 0)) > VERSION:
            raise KeyFileDamaged(f"{KEY_FILE} was written by a newer memoir")
        return cls(home, data)

    def save(self) -> None:
        # Owner-only: the passphrase slot read by another account could be guessed at offline.
        write_private(key_path(self.home), json.dumps(self.data, indent=1))

    # unlocking ----------------------------------------------------------------------------

    def _checked(self, key: bytes | None) -> bytes | None:
        if key is not None and hmac.compare_digest(verifier(key), self.data["verifier"]):
            return key
        return None

    def unlock_keyring(self) -> bytes | None:
        if not self.uses_keyring:
            return None
        try:
            stored = keyring.get_password(SERVICE, self.account)
        except (NoKeyringError, KeyringError, RuntimeError) as exc:
            log.info("keyring not available (%s)", exc.__class__.__name__)
            return None
        if not stored:
            return None
        return self._checked(_unwrap(_unb64(stored), self.data["keyring"], "keyring"))

    def unlock_secret(self, secret: str) -> Unlocked:
        """Open with a passphrase or the recovery key. Raises WrongPassphrase; changes nothing."""
        if self.has_passphrase:
            slot = self.data["passphrase"]
            key = self._checked(_unwrap(_argon2(secret, _unb64(slot["salt"]), slot["kdf"]), slot, "passphrase"))
            if key is not None:
                return Unlocked(key, "passphrase", self.journal_id)
        if looks_like_recovery_key(secret) and "recovery" in self.data:
            slot = self.data["recovery"]
            key = self._checked(_unwrap(_recovery_kek(secret, _unb64(slot["salt"])), slot, "recovery"))
            if key is not None:
                return Unlocked(key, "recovery", self.journal_id)
        if not self.has_passphrase and not looks_like_recovery_key(secret):
            raise WrongPassphrase("This journal has no passphrase; open it with its recovery key.", "wrong")
        raise WrongPassphrase("That passphrase does not open this journal. Nothing was changed.", "wrong")

    def unlock(self, passphrase: str | None = None, *, allow_keyring: bool = True) -> Unlocked:
        """The data key: from the passphrase given (or MEMOIR_PASSPHRASE), else the keyring.
        Raises WrongPassphrase, or PassphraseNeeded with the reason."""
        secret = passphrase or env_passphrase()
        if secret:
            return self.unlock_secret(secret)
        if allow_keyring:
            key = self.unlock_keyring()
            if key is not None:
                return Unlocked(key, "keyring", self.journal_id)
        if not allow_keyring:
            reason, code = "The journal is locked: enter its passphrase.", "locked"
        elif not self.uses_keyring:
            reason, code = "This journal is opened with its passphrase.", "passphrase_only"
        elif not keyring_available():
            reason, code = ("No system keyring is available on this computer, so the journal's key cannot be "
                            "read from it: enter the passphrase or the recovery key."), "no_keyring"
        else:
            reason, code = ("The system keyring does not hold this journal's key (another computer, or the "
                            "keyring was reset): enter the passphrase or the recovery key."), "keyring_missing"
        raise PassphraseNeeded(reason, code)

    # changes --------------------------------------------------------------------------------

    def _set_keyring(self, data_key: bytes) -> None:
        kek = os.urandom(32)
        keyring.set_password(SERVICE, self.account, _b64(kek))
        self.data["keyring"] = _wrap(kek, data_key, "keyring")

    def _set_passphrase(self, data_key: bytes, passphrase: str) -> None:
        salt = os.urandom(16)
        params = dict(ARGON2)
        self.data["passphrase"] = {"salt": _b64(salt), "kdf": {"name": "argon2id", **params},
                                   **_wrap(_argon2(passphrase, salt, params), data_key, "passphrase")}

    def set_passphrase(self, data_key: bytes, passphrase: str) -> None:
        """Set or change the passphrase: the data key is rewrapped, the data stays as it is."""
        if self._checked(data_key) is None:
            raise WrongPassphrase("the key given is not this journal's key")
        check_passphrase(passphrase)
        self._set_passphrase(data_key, passphrase)
        self.save()

    def remove_passphrase(self, data_key: bytes) -> None:
        if self._checked(data_key) is None:
            raise WrongPassphrase("the key given is not this journal's key")
        if not self.uses_keyring or self.unlock_keyring() is None:
            raise PassphraseNeeded("Without a passphrase nothing would keep the journal's key on this "
                                   "computer: the system keyring does not hold it.")
        self.data.pop("passphrase", None)
        self.save()

    def store_in_keyring(self, data_key: bytes) -> bool:
        """Keep (again) a wrapped copy through the OS keyring; False when there is none."""
        if self._checked(data_key) is None:
            raise WrongPassphrase("the key given is not this journal's key")
        if not keyring_available():
            return False
        try:
            self._set_keyring(data_key)
        except (NoKeyringError, KeyringError, RuntimeError):
            return False
        self.save()
        return True

    def new_recovery_key(self, data_key: bytes) -> str:
        """Replace the recovery key (the old one stops working). Show the result once."""
        if self._checked(data_key) is None:
            raise WrongPassphrase("the key given is not this journal's key")
        recovery = new_recovery_key()
        salt = os.urandom(16)
        self.data["recovery"] = {"salt": _b64(salt), **_wrap(_recovery_kek(recovery, salt), data_key, "recovery")}
        self.save()
        return recovery


def check_passphrase(passphrase: str) -> None:
    if len(passphrase) < MIN_PASSPHRASE:
        raise PassphraseNeeded(f"A passphrase needs at least {MIN_PASSPHRASE} characters.", "too_short")


def sqlcipher_key(data_key: bytes) -> str:
    """The raw-key form of PRAGMA key (no KDF per connection: the key is already random)."""
    return f"\"x'{data_key.hex()}'\""


# -- sealing files with a passphrase (encrypted exports) --------------------------------------

SEALED_MAGIC = b"MEMOIR-SEALED-1\n"
# The header's "check": an HMAC of this under the passphrase's key. AES-GCM alone cannot tell a wrong
# passphrase from a damaged body (both fail the tag); the check can, so a damaged file is not called a
# wrong passphrase (and nobody types theirs again and again at a file no passphrase will open).
_SEALED_CHECK = b"memoir-desktop sealed file passphrase check v1"
MAX_SEALED_HEADER = 4096


class SealedFileDamaged(ValueError):
    """A sealed file that its passphrase opens, but whose contents fail their check (or that is cut
    short): damaged on a disk or on the way. Nothing was read from it."""


def seal(plaintext: bytes, passphrase: str) -> bytes:
    """A passphrase-protected blob: magic, JSON header (Argon2id salt and cost, the passphrase check),
    AES-GCM body."""
    check_passphrase(passphrase)
    salt, nonce = os.urandom(16), os.urandom(12)
    params = dict(ARGON2)
    kek = _argon2(passphrase, salt, params)
    header = json.dumps({"kdf": {"name": "argon2id", **params}, "salt": _b64(salt), "nonce": _b64(nonce),
                         "check": _b64(hmac.new(kek, _SEALED_CHECK, hashlib.sha256).digest())}).encode()
    body = AESGCM(kek).encrypt(nonce, plaintext, header)
    return SEALED_MAGIC + len(header).to_bytes(4, "big") + header + body


def is_sealed(blob: bytes) -> bool:
    return blob.startswith(SEALED_MAGIC)


def unseal(blob: bytes, passphrase: str) -> bytes:
    if not is_sealed(blob):
        raise ValueError("not a memoir encrypted file")
    rest = blob[len(SEALED_MAGIC):]
    n = int.from_bytes(rest[:4], "big")
    header_bytes, body = rest[4:4 + n], rest[4 + n:]
    try:
        if not 0 < n <= MAX_SEALED_HEADER or len(header_bytes) < n:
            raise ValueError("cut short")
        header = json.loads(header_bytes)
        salt, nonce, kdf = _unb64(header["salt"]), _unb64(header["nonce"]), header["kdf"]
        if not isinstance(kdf, dict) or len(body) < 16:
            raise ValueError("cut short")
        # A hostile file could ask Argon2 for terabytes: the costs memoir writes, and some room above.
        if not (1 <= int(kdf["time_cost"]) <= 16 and 8 <= int(kdf["memory_kib"]) <= 1024 * 1024
                and 1 <= int(kdf["parallelism"]) <= 16):
            raise ValueError("unreasonable key derivation")
    except (ValueError, KeyError, TypeError) as exc:
        raise SealedFileDamaged("it is cut short or its header cannot be read.") from exc
    kek = _argon2(passphrase, salt, kdf)
    check = header.get("check")
    if check is not None and not hmac.compare_digest(
            str(check), _b64(hmac.new(kek, _SEALED_CHECK, hashlib.sha256).digest())):
        raise WrongPassphrase("That passphrase does not open this file. Nothing was imported.")
    try:
        return AESGCM(kek).decrypt(nonce, body, header_bytes)
    except InvalidTag as exc:
        if check is not None:  # the passphrase is right: the body is what changed
            raise SealedFileDamaged("the passphrase is right, but its contents fail their integrity check "
                                    "(changed on a disk or on the way).") from exc
        raise WrongPassphrase("That passphrase does not open this file, or the file is damaged (a file made "
                              "by an older memoir cannot tell which). Nothing was imported.") from exc
