"""Key epochs: how a lost computer is locked out of what is written after.

Every computer that has the journal has its data key, and the data key never changes (the database is
not re-encrypted), so a key derived from it alone (epoch 0, sealing.sync_key: the previous format)
cannot shut anyone out. A *key epoch* is a random sync key, made when the journal's passphrase changes
or a computer is removed, and from then on every file is sealed under the newest epoch's key. Whoever
holds an older key still opens the older files, and only those.

An epoch file (``devices/<writer>/epoch-<n>``, JSON, no text of the journal) carries the new key:

* wrapped for each computer that stays (an X25519 exchange with the public key in its key box, pinned
  the first time it was seen), so they go on without a word: "remove this computer";
* wrapped by the passphrase (Argon2id), so a new computer joins with the passphrase, and a computer
  that was not wrapped for (after a passphrase change, every other one) goes on once the diarist types
  the new passphrase there;
* with the older keys sealed under the new one (a new computer reads the whole history), the new
  passphrase's slot of the data key (the other computers open with it from then on), the computers it
  removes and how far their files are taken, and an HMAC under the new key over all of it, so no field
  can be changed by someone who does not hold the new key.

What it does not do: a removed computer keeps what it had downloaded, and the older keys, which open
the older files still in the sync place (README, "What a lost computer still has").
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from memoir_desktop.core.keys import crypto

FORMAT = "memoir-sync-epoch"
VERSION = 1
_WRAP_INFO = b"memoir-desktop sync epoch wrap v1"


class BadEpoch(Exception):
    """An epoch file that cannot be trusted or read (damaged, or made by someone without the key)."""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"))


# -- this computer's key pair ---------------------------------------------------------------------

def new_device_key() -> bytes:
    return X25519PrivateKey.generate().private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                                     serialization.NoEncryption())


def public_of(private: bytes) -> str:
    pub = X25519PrivateKey.from_private_bytes(private).public_key()
    return b64(pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def _wrap_key(shared: bytes, epoch: int, device: str) -> bytes:
    info = _WRAP_INFO + f" {epoch} {device}".encode()
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)


def wrap_for(public: str, key: bytes, epoch: int, device: str) -> dict:
    eph = X25519PrivateKey.generate()
    shared = eph.exchange(X25519PublicKey.from_public_bytes(unb64(public)))
    nonce = os.urandom(12)
    eph_pub = eph.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    body = AESGCM(_wrap_key(shared, epoch, device)).encrypt(nonce, key, f"{epoch} {device}".encode())
    return {"eph": b64(eph_pub), "nonce": b64(nonce), "wrapped": b64(body)}


def unwrap_mine(private: bytes, slot: dict, epoch: int, device: str) -> bytes | None:
    try:
        shared = X25519PrivateKey.from_private_bytes(private).exchange(X25519PublicKey.from_public_bytes(unb64(slot["eph"])))
        return AESGCM(_wrap_key(shared, epoch, device)).decrypt(unb64(slot["nonce"]), unb64(slot["wrapped"]),
                                                                f"{epoch} {device}".encode())
    except (InvalidTag, KeyError, ValueError, TypeError):
        return None


# -- the passphrase's slot of an epoch key ---------------------------------------------------------------

# The slot is made when the passphrase changes, before the epoch has its number (given when it is
# published): the number is bound by the epoch file's HMAC instead.
_SLOT_AAD = b"memoir-desktop sync epoch key"


def passphrase_slot(passphrase: str, key: bytes) -> dict:
    salt = os.urandom(16)
    params = dict(crypto.ARGON2)
    kek = crypto._argon2(passphrase, salt, params)
    nonce = os.urandom(12)
    return {"salt": b64(salt), "kdf": {"name": "argon2id", **params}, "nonce": b64(nonce),
            "wrapped": b64(AESGCM(kek).encrypt(nonce, key, _SLOT_AAD))}


def open_passphrase_slot(passphrase: str, slot: dict) -> bytes | None:
    try:
        kdf = slot["kdf"]
        if not (1 <= int(kdf["time_cost"]) <= 16 and 8 <= int(kdf["memory_kib"]) <= 1024 * 1024
                and 1 <= int(kdf["parallelism"]) <= 16):
            return None  # a hostile file asking Argon2 for terabytes
        kek = crypto._argon2(passphrase, unb64(slot["salt"]), kdf)
        return AESGCM(kek).decrypt(unb64(slot["nonce"]), unb64(slot["wrapped"]), _SLOT_AAD)
    except (InvalidTag, KeyError, ValueError, TypeError):
        return None


# -- the epoch file ---------------------------------------------------------------------------------

@dataclass
class Epoch:
    number: int
    by: str  # the device that made it
    at: str
    reason: str  # passphrase | removed
    members: dict[str, dict]  # device -> its wrap
    passphrase: dict  # the key under the passphrase
    removed: dict[str, int] = field(default_factory=dict)  # device -> its last segment taken
    data_slot: dict | None = None  # the passphrase's slot of the data key, for the others to adopt
    older: dict | None = None  # the older epochs' keys, sealed under this one
    raw: dict = field(default_factory=dict, repr=False)


def _mac(key: bytes, body: dict) -> str:
    text = json.dumps({k: v for k, v in body.items() if k != "mac"}, sort_keys=True, separators=(",", ":"))
    return b64(hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest())


def make(number: int, by: str, at: str, reason: str, key: bytes, *, members: dict[str, str],
         passphrase: dict, removed: dict[str, int], data_slot: dict | None, older: dict[int, bytes]) -> bytes:
    """The epoch file's bytes. `members`: device -> its pinned public key; `passphrase`: passphrase_slot's."""
    nonce = os.urandom(12)
    sealed_older = AESGCM(key).encrypt(nonce, json.dumps({str(n): b64(k) for n, k in older.items()}).encode(),
                                       f"older {number}".encode())
    body = {"format": FORMAT, "v": VERSION, "epoch": number, "by": by, "at": at, "reason": reason,
            "members": {dev: wrap_for(pub, key, number, dev) for dev, pub in members.items()},
            "passphrase": passphrase, "removed": removed, "data_slot": data_slot,
            "older": {"nonce": b64(nonce), "sealed": b64(sealed_older)}}
    body["mac"] = _mac(key, body)
    return json.dumps(body, indent=1).encode("utf-8")


def read(blob: bytes) -> Epoch:
    """The epoch file's fields, unchecked (check() needs its key); raises BadEpoch."""
    try:
        body = json.loads(blob.decode("utf-8"))
        if body.get("format") != FORMAT or int(body.get("v", 0)) != VERSION:
            raise BadEpoch("not a memoir key epoch")
        return Epoch(int(body["epoch"]), str(body["by"]), str(body["at"]), str(body["reason"]),
                     dict(body["members"]), dict(body["passphrase"]),
                     {str(d): int(s) for d, s in (body.get("removed") or {}).items()}, body.get("data_slot"),
                     body.get("older"), body)
    except BadEpoch:
        raise
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadEpoch("a damaged key epoch") from exc


def check_with(ep: Epoch, key: bytes) -> bool:
    """Whether an epoch whose key is known already is the one made with it (its HMAC holds)."""
    return hmac.compare_digest(_mac(key, ep.raw), str(ep.raw.get("mac", "")))


def open_epoch(ep: Epoch, *, device: str, private: bytes | None, passphrase: str | None) -> tuple[bytes, str] | None:
    """The epoch's key, and how it was opened ("member" or "passphrase"), once its HMAC holds; None
    when neither this computer's key pair nor the passphrase given opens it. Raises BadEpoch when
    something opens it but its fields were changed."""
    key, how = None, ""
    if private is not None and device in ep.members:
        key, how = unwrap_mine(private, ep.members[device], ep.number, device), "member"
    if key is None and passphrase:
        key, how = open_passphrase_slot(passphrase, ep.passphrase), "passphrase"
    if key is None:
        return None
    if not hmac.compare_digest(_mac(key, ep.raw), str(ep.raw.get("mac", ""))):
        raise BadEpoch("a key epoch whose fields were changed")
    return key, how


def older_keys(ep: Epoch, key: bytes) -> dict[int, bytes]:
    try:
        older = ep.older or {}
        plain = AESGCM(key).decrypt(unb64(older["nonce"]), unb64(older["sealed"]), f"older {ep.number}".encode())
        return {int(n): unb64(k) for n, k in json.loads(plain).items()}
    except (InvalidTag, KeyError, ValueError, TypeError) as exc:
        raise BadEpoch("a key epoch whose older keys cannot be read") from exc
