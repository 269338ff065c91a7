"""What can stop a sync round, in the diarist's words, each with a `code` a screen can translate.

Every one of them leaves the journal as it was before the round, or with some of the round done:
a round is made of steps that each commit (or upload) completely or not at all, and the next round
takes up where this one stopped.
"""

from __future__ import annotations


class SyncError(Exception):
    code = "failed"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        if code:
            self.code = code


class Offline(SyncError):
    """The sync place cannot be reached (no network, the server is down, the connection broke)."""

    code = "offline"


class AccessRefused(SyncError):
    """The server refused the user name and password (or the storage's credentials)."""

    code = "access"


class TargetFull(SyncError):
    """The sync place has no room left."""

    code = "full"


class WrongPassphrase(SyncError):
    """The passphrase does not open the journal kept in the sync place. Nothing was changed."""

    code = "wrong_passphrase"


class NotThisJournal(SyncError):
    """The sync place holds another journal (or something that is not a memoir sync folder)."""

    code = "another_journal"


class Removed(SyncError):
    """This computer was removed from the journal on another one: it keeps what it has, and syncs no more."""

    code = "removed"


class NewPassphrase(SyncError):
    """The journal's passphrase was changed on another computer: this one goes on once it is typed here."""

    code = "new_passphrase"


class CannotSync(SyncError):
    """This journal cannot be synced as it is (not encrypted, no passphrase, no place chosen)."""

    code = "cannot_sync"


OFFLINE = ("The sync place cannot be reached: check the network connection (and that the server is "
           "running). Nothing was lost; the next sync takes up where this one stopped.")
ACCESS = ("The WebDAV server refused the user name or password. Check them in Settings → Sync (memoir-cli "
          "takes them from MEMOIR_SYNC_USER and MEMOIR_SYNC_PASSWORD). Nothing was changed.")
ACCESS_S3 = ("The S3 storage refused this computer's access key. memoir reads the usual AWS credentials: "
             "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials (AWS_PROFILE). "
             "Check that the key is still valid and may read and write this bucket (and MEMOIR_S3_ENDPOINT, for "
             "storage that is not Amazon's). Nothing was changed.")
NO_CREDENTIALS_S3 = ("This computer has no access key for S3 storage: set AWS_ACCESS_KEY_ID and "
                     "AWS_SECRET_ACCESS_KEY, or add a profile to ~/.aws/credentials (the AWS command line's "
                     "'aws configure' writes one). Nothing was changed.")
ACCESS_FOLDER = ("memoir may not read or write in that folder: check its permissions, or choose another one. "
                 "Nothing was changed.")


def access(kind: str) -> str:
    """What to check when the sync place refuses this computer, by kind of place (folder, webdav, s3)."""
    return {"s3": ACCESS_S3, "webdav": ACCESS}.get(kind, ACCESS_FOLDER)


FULL = ("The sync place is full: free some space there (or choose a larger one). Nothing was lost; "
        "the next sync takes up where this one stopped.")
