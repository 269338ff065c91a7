"""Nothing readable leaves the computer: every file memoir writes to a sync place is sealed here.

* The first *sync key* (epoch 0) is derived from the journal's data key (HKDF-SHA256, its own label),
  so it is the same on every computer that has the journal and never stored anywhere. A passphrase
  change or a removed computer starts a new *key epoch* with a random key (epochs.py): from then on
  files are sealed under it, and a computer without it opens none of them.
* A sealed file of epoch 0 is ``MAGIC || nonce || AES-256-GCM(zlib(JSON))`` with the file's own name
  as the associated data (the previous format, which older memoirs read); a later epoch's is
  ``MAGIC2 || epoch (4 bytes) || nonce || AES-256-GCM(...)``, its number bound in too. A file copied or
  renamed to another place in the target (another device's segment, another number) fails
  authentication like a damaged one, and is skipped.
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
MAGIC2 = b"MEMOIR-SYNC-2\n"
BOX_FORMAT = "memoir-sync-key"
_INFO = b"memoir-desktop sync files v1"


class Unreadable(Exception):
    """A file in the target that is not a sealed memoir file (foreign) or fails its check (damaged)."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind  # damaged | foreign | locked (sealed under a key epoch this computer does not have)


def sync_key(data_key: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(data_key)


def seal(key: bytes, name: str, payload: dict, epoch: int = 0) -> bytes:
    body = zlib.compress(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)
    nonce = os.urandom(12)
    if epoch == 0:
        return MAGIC + nonce + AESGCM(key).encrypt(nonce, body, MAGIC + name.encode("utf-8"))
    head = MAGIC2 + epoch.to_bytes(4, "big")
    return head + nonce + AESGCM(key).encrypt(nonce, body, head + name.encode("utf-8"))


def epoch_of(blob: bytes) -> int | None:
    """The key epoch a sealed file is under (None: not a memoir sync file)."""
    if blob.startswith(MAGIC):
        return 0
    if blob.startswith(MAGIC2) and len(blob) >= len(MAGIC2) + 4:
        return int.from_bytes(blob[len(MAGIC2):len(MAGIC2) + 4], "big")
    return None


def unseal(keys: bytes | dict[int, bytes], name: str, blob: bytes) -> dict:
    """The payload of a sealed file; raises Unreadable (foreign, damaged, or locked: sealed under a key
    epoch not among `keys`, a dict of epoch -> key, or one key for epoch 0)."""
    keys = {0: keys} if isinstance(keys, bytes) else keys
    epoch = epoch_of(blob)
    if epoch is None:
        raise Unreadable("not a memoir sync file", "foreign")
    key = keys.get(epoch)
    if key is None:
        raise Unreadable("sealed under a newer key this computer was not given", "locked")
    head = MAGIC if epoch == 0 else MAGIC2 + epoch.to_bytes(4, "big")
    rest = blob[len(head):]
    if len(rest) < 12 + 16:
        raise Unreadable("the file is cut short", "damaged")
    try:
        body = AESGCM(key).decrypt(rest[:12], rest[12:], head + name.encode("utf-8"))
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

def lock_box(key_file: crypto.KeyFile, device_pub: str | None = None) -> bytes:
    """This journal's key as the target keeps it: the key file's passphrase and recovery slots, and the
    computer's public key, to which a new key epoch is wrapped (epochs.py)."""
    if not key_file.has_passphrase:
        raise ValueError("no passphrase")
    data = {k: v for k, v in key_file.data.items() if k != "keyring"}
    data["box"] = BOX_FORMAT
    if device_pub:
        data["device_pub"] = device_pub
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
