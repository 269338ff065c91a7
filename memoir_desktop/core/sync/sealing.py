"""Nothing readable leaves the computer: every file memoir writes to a sync place is sealed here.

* The *sync key* is derived from the journal's data key (HKDF-SHA256, its own label), so it is the
  same on every computer that has the journal and never stored anywhere.
* A sealed file is ``MAGIC || nonce || AES-256-GCM(zlib(JSON))`` with the file's own name as the
  associated data: a file copied or renamed to another place in the target (another device's
  segment, another number) fails authentication like a damaged one, and is skipped.
* The *lock box* each device writes is the journal key wrapped by the passphrase and the recovery
  key, exactly as ``memoir.key`` wraps it (core/keys/crypto.py: Argon2id + AES-GCM), without the keyring
  slot: a new computer joins with the passphrase alone. It holds no text.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from memoir_desktop.core.keys import crypto

MAGIC = b"MEMOIR-SYNC-1\n"
BOX_FORMAT = "memoir-sync-key"
_INFO = b"memoir-desktop sync files v1"


class Unreadable(Exception):
    """A file in the target that is not a sealed memoir file (foreign) or fails its check (damaged)."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind  # damaged | foreign


def sync_key(data_key: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(data_key)


def seal(key: bytes, name: str, payload: dict) -> bytes:
    body = zlib.compress(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)
    nonce = os.urandom(12)
    return MAGIC + nonce + AESGCM(key).encrypt(nonce, body, MAGIC + name.encode("utf-8"))


def unseal(key: bytes, name: str, blob: bytes) -> dict:
    """The payload of a sealed file; raises Unreadable (foreign or damaged)."""
    if not blob.startswith(MAGIC):
        raise Unreadable("not a memoir sync file", "foreign")
    rest = blob[len(MAGIC):]
    if len(rest) < 12 + 16:
        raise Unreadable("the file is cut short", "damaged")
    try:
        body = AESGCM(key).decrypt(rest[:12], rest[12:], MAGIC + name.encode("utf-8"))
    except InvalidTag:
        raise Unreadable("the file fails its integrity check (damaged, moved, or another journal's)",
                         "damaged") from None
    try:
        payload = json.loads(zlib.decompress(body).decode("utf-8"))
    except (zlib.error, ValueError) as exc:
        raise Unreadable(f"the file's contents cannot be read ({exc.__class__.__name__})", "damaged") from exc
    if not isinstance(payload, dict):
        raise Unreadable("the file's contents are not a memoir record", "damaged")
    return payload


# -- the lock box -------------------------------------------------------------------------------

def lock_box(key_file: crypto.KeyFile) -> bytes:
    """This journal's key as the target keeps it: the key file's passphrase and recovery slots."""
    if not key_file.has_passphrase:
        raise ValueError("no passphrase")
    data = {k: v for k, v in key_file.data.items() if k != "keyring"}
    data["box"] = BOX_FORMAT
    return json.dumps(data, indent=1).encode("utf-8")


def read_box(blob: bytes) -> crypto.KeyFile:
    """A lock box as a key file (nothing is written); raises Unreadable."""
    try:
        data = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise Unreadable("not a memoir key", "foreign") from exc
    if not isinstance(data, dict) or data.get("box") != BOX_FORMAT or data.get("format") != crypto.FORMAT \
            or "verifier" not in data:
        raise Unreadable("not a memoir key", "foreign")
    return crypto.KeyFile(Path("."), data)


def same_journal(box: crypto.KeyFile, data_key: bytes) -> bool:
    """Whether a lock box keeps this data key (its verifier is an HMAC under the key)."""
    return crypto.verifier(data_key) == box.data.get("verifier")
