"""What sync says on screen: why a round did not work, how far one has got, when the journal last synced.

The core's errors carry a `code` (core/sync/errors.py) and sentences written for its command line (they
name `memoir-cli` and environment variables), so the screens say each code in their own words, told
apart by the kind of place: a folder refuses differently from a server.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QCoreApplication

from memoir_desktop.core.sync import SyncError, SyncReport
from memoir_desktop.ui.shared.formatting import short_date, short_time
from memoir_desktop.ui.shared.reasons import reason
from memoir_desktop.ui.sync.address import FOLDER, S3, WEBDAV


def tr(text: str, n: int = -1) -> str:
    """QCoreApplication.translate in the "sync" context (named `tr` so the translation check finds these)."""
    return QCoreApplication.translate("sync", text, None, n)


def failure(exc: BaseException, kind: str) -> str:
    """A sentence (or two) saying why a round or a test did not work, and what to do."""
    if not isinstance(exc, SyncError):
        return tr("Could not sync: {reason}.").format(reason=reason(exc))
    code = exc.code
    if code == "offline":
        if kind == FOLDER:
            return tr("The sync folder cannot be reached (is its drive connected?). Nothing was lost; memoir "
                      "tries again in a few minutes.")
        return tr("The sync place cannot be reached: check the network connection, and that the server is "
                  "running. Nothing was lost; memoir tries again in a few minutes.")
    if code == "access":
        if kind == WEBDAV:
            return tr("The server refused the user name or password: check them in Settings → Sync. Nothing "
                      "was changed.")
        if kind == S3:
            return tr("The storage refused this computer's access keys: check the AWS settings on this "
                      "computer. Nothing was changed.")
        return tr("memoir is not allowed to read or write in that folder: choose another one, or allow it "
                  "there. Nothing was changed.")
    if code == "full":
        return tr("The sync place is full: free some space there, or choose a larger one. Nothing was lost; "
                  "the next sync takes up where this one stopped.")
    if code == "wrong_passphrase":
        return tr("Your passphrase does not open the journal kept there. Nothing was changed.")
    if code == "another_journal":
        return tr("That place already holds another journal: choose another folder or address for this one. "
                  "Nothing was changed there.")
    if code == "new_passphrase":
        return tr("The journal's passphrase was changed on another of your computers. Type the new passphrase "
                  "here to go on syncing; until then this computer receives nothing written since. Nothing was "
                  "changed.")
    if code == "removed":
        return tr("This computer was removed from your journal on another of your computers. It keeps what it "
                  "had, but it syncs no more and receives nothing written since.")
    if code == "no_such_computer":
        return tr("That computer is not one of this journal's computers any more. Nothing was changed.")
    if code == "cannot_sync":
        return _cannot_sync(str(exc))
    return tr("The sync place answered with an error. Nothing was lost; memoir tries again in a few minutes.")


def _cannot_sync(text: str) -> str:
    """The core's reasons a journal or an address cannot be synced, said for the app, not its command line."""
    if "encrypted journal" in text:
        return tr("Only an encrypted journal can be synced: File → Encrypt this journal, then set a "
                  "passphrase.")
    if "passphrase" in text:
        return tr("Sync needs your journal to have a passphrase: your other computers open the journal with "
                  "it. Set one in Settings → Sync.")
    if "No sync place" in text:
        return no_place()
    if "cannot be made or opened" in text:
        return tr("That folder cannot be made or opened: choose another one.")
    if "cannot reach S3" in text:
        return tr("This copy of memoir cannot reach S3 storage: sync through a folder or WebDAV, or use "
                  "memoir installed with pip from its source, which can.")
    if "names its bucket" in text:
        return tr("An S3 address names its bucket: s3://bucket/folder")
    if "bucket does not exist" in text:
        return tr("That S3 bucket does not exist, or this computer's access keys cannot see it.")
    if "is not a sync place" in text:
        return tr("That is not a sync place: choose a folder (its whole path), a WebDAV server or S3 storage.")
    if "cannot sync to a" in text:
        return tr("memoir cannot sync to this kind of address: choose a folder, a WebDAV server or S3 "
                  "storage.")
    return text


def join_failure(exc: BaseException, kind: str) -> str:
    """Why a journal kept in a sync place was not brought to this computer (ui/sync/join_dialog.py)."""
    code = getattr(exc, "code", None) if isinstance(exc, SyncError) else None
    if code == "wrong_passphrase":
        return tr("That passphrase does not open the journal kept there. Nothing was changed, here or there. "
                  "Type the passphrase you chose on your other computer.")
    if code == "nothing_there":
        return tr("No journal is kept there yet. On the computer that has your journal, choose this place in "
                  "Settings → Sync and sync once, then try again here.")
    if code == "recovery_key":
        return tr("That is the recovery key. It opens the journal, but this computer needs the journal's "
                  "passphrase to keep it: type the passphrase instead. Nothing was changed.")
    if code == "not_empty":
        return tr("This computer's journal is no longer empty, so it was not replaced. Nothing was changed.")
    if code == "access" and kind == WEBDAV:
        return tr("The server refused the user name or password: check them and try again. Nothing was "
                  "changed.")
    if code == "offline":
        return tr("The sync place cannot be reached: check the network connection (or that the folder's drive "
                  "is connected) and try again. Nothing was changed.")
    return failure(exc, kind)


def join_progress(stage: str, done: int, total: int) -> str:
    """How far bringing a journal here has got (the stages of its first round)."""
    if stage == "download" and total:
        return tr("Bringing your journal here… {done} of {total}").format(done=min(done + 1, total), total=total)
    if stage == "apply":
        return tr("Adding your entries and memories…")
    if stage == "index":
        return tr("Preparing search for your journal…")
    return tr("Bringing your journal here…")


def no_place() -> str:
    return tr("Choose where to sync first: a folder, a WebDAV server or S3 storage.")


def short_failure(exc: BaseException) -> str:
    """A few words for the status bar (the sentence is its tooltip)."""
    code = getattr(exc, "code", None) if isinstance(exc, SyncError) else None
    return {"offline": tr("Not synced: the place cannot be reached"),
            "access": tr("Not synced: access refused"),
            "full": tr("Not synced: the place is full"),
            "new_passphrase": tr("Not synced: type the new passphrase"),
            "removed": tr("Not synced: this computer was removed")}.get(code, tr("Not synced"))


def progress(stage: str, done: int, total: int) -> str:
    """How far a round has got (core/sync/report.py's stages)."""
    if stage == "upload":
        return tr("Syncing… sending your changes")
    if stage == "download" and total:
        return tr("Syncing… receiving {done} of {total}").format(done=min(done + 1, total), total=total)
    if stage == "apply":
        return tr("Syncing… adding what came from your other computers")
    if stage == "index":
        return tr("Syncing… preparing search for what came")
    return tr("Syncing…")


def synced_ago(when: datetime | None, now: datetime | None = None) -> str:
    if when is None:
        return tr("Not synced yet")
    now = now or datetime.now()
    seconds = max(0.0, (now - when).total_seconds())
    if seconds < 60:
        return tr("Synced just now")
    if seconds < 3600:
        return tr("Synced %n minute(s) ago", int(seconds // 60))
    if when.date() == now.date():
        return tr("Synced %n hour(s) ago", int(seconds // 3600))
    if (now.date() - when.date()).days == 1:
        return tr("Synced yesterday at {time}").format(time=short_time(when))
    return tr("Synced on {date}").format(date=short_date(when))


def round_result(report: SyncReport) -> str:
    """What a round did, for Settings → Sync."""
    if not report.pushed and not report.pulled:
        said = tr("Nothing new to send or receive.")
    else:
        said = tr("%n change(s) sent", report.pushed) + ", " + tr("%n received", report.pulled) + "."
    if report.skipped:
        said += " " + tr("%n file(s) in the sync place could not be read and were left alone.",
                         len(report.skipped))
    for problem in report.problems:
        said += " " + problem_sentence(problem)
    return said


def problem_sentence(problem) -> str:
    """What a round could not verify (core/sync/report.py Problem), said for the diarist: which computer,
    since when, and that nothing here was lost."""
    if problem.kind in ("missing", "rolled_back"):
        return tr("The sync place is missing what {computer} wrote since {when}: lost on the way, or the place "
                  "was put back to an older copy. Nothing from it was merged and your journal here is unchanged; "
                  "once that computer syncs, it sends it again.").format(
            computer=problem.name or problem.device[:6], when=_when(problem.since))
    if problem.kind == "another_journal":
        return tr("The folder {folder} in the sync place holds another journal's key: it is left aside and the "
                  "others sync on. Remove it from the sync place if it is not one of your computers.").format(
            folder=problem.device)
    return tr("The key of the folder {folder} in the sync place cannot be read or has changed: it is left aside "
              "and the others sync on.").format(folder=problem.device)


def _when(iso: str | None) -> str:
    try:
        at = datetime.fromisoformat(iso) if iso else None
    except ValueError:
        at = None
    return tr("an unknown time") if at is None else f"{short_date(at)} {short_time(at)}"


def trouble(report: SyncReport) -> str:
    """A few words for the status bar after a round that skipped a file or could not verify something."""
    return tr("Synced, but something needs a look")
