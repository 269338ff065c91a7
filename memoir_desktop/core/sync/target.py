"""Where a journal is synced: a folder, a WebDAV server or S3-compatible storage, all reached through
one filesystem interface (fsspec), so the rest of sync never knows which.

* ``file:///home/me/Dropbox/memoir`` (or a plain path): a folder that Dropbox, Syncthing or iCloud
  then carries;
* ``webdav://host[:port]/path`` / ``webdavs://…`` (HTTPS): the user name and password come from the
  OS keyring (core/keys/secrets.py, saved by Settings → Sync) or MEMOIR_SYNC_USER / MEMOIR_SYNC_PASSWORD;
* ``s3://bucket/prefix``: credentials the usual AWS way (environment, ~/.aws, a role);
  MEMOIR_S3_ENDPOINT points at MinIO, R2, B2 or any other S3-compatible service.

A file appears whole or not at all: a folder or WebDAV upload goes to a temporary name first and is
then renamed (one step on the server); an S3 upload is atomic anyway. Every failure is raised as one
of errors.py's classes, in words a diarist can act on.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets as pysecrets
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from memoir_desktop.core.keys import secrets
from memoir_desktop.core.sync import errors

log = logging.getLogger(__name__)

ENV_USER, ENV_PASSWORD = "MEMOIR_SYNC_USER", "MEMOIR_SYNC_PASSWORD"
ENV_S3_ENDPOINT = "MEMOIR_S3_ENDPOINT"
TMP_PREFIX = "tmp-"  # an upload under way (or cut short): never read, removed by its writer


@dataclass
class RemoteFile:
    name: str  # relative to the target's root, "/"-separated
    size: int


def describe(url: str) -> str:
    """The URL without anything secret in it (a user:password@ someone typed), for settings and logs."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return parts._replace(netloc=netloc).geturl()
    return url


class Target:
    """One sync place: read, write, list and delete files under its root."""

    def __init__(self, url: str, fs, root: str, *, atomic_rename: bool, kind: str = "folder"):
        self.url = describe(url)
        self.kind = kind  # folder, webdav or s3: what a refusal asks the user to check
        self.fs = fs
        self.root = root.rstrip("/")
        self.atomic_rename = atomic_rename
        self.bytes_up = 0
        self.bytes_down = 0

    def _path(self, name: str) -> str:
        if not name:
            return self.root
        return f"{self.root}/{name}" if self.root else name

    def _name(self, path: str) -> str:
        path = path.rstrip("/")
        root = self.root.lstrip("/")
        p = path.lstrip("/")
        return p[len(root):].lstrip("/") if root and p.startswith(root) else p

    # -- operations ---------------------------------------------------------------------

    def list(self, folder: str) -> list[RemoteFile]:
        """Every file under `folder` (recursively); an absent folder is empty."""
        with _translated(f"list {folder}", self.kind):
            try:
                found = self.fs.find(self._path(folder), withdirs=False, detail=True)
            except FileNotFoundError:
                return []
        return [RemoteFile(self._name(p), int(info.get("size") or 0)) for p, info in found.items()
                if info.get("type", "file") != "directory"]

    def read(self, name: str) -> bytes:
        with _translated(f"read {name}", self.kind):
            data = self.fs.cat_file(self._path(name))
        self.bytes_down += len(data)
        return data

    def exists(self, name: str) -> bool:
        with _translated(f"look for {name}", self.kind):
            return bool(self.fs.exists(self._path(name)))

    def put(self, name: str, data: bytes) -> None:
        """Write a file whole: it is there complete with these bytes, or the call raised."""
        path = self._path(name)
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        with _translated(f"write {name}", self.kind):
            if folder and self.atomic_rename:
                self.fs.makedirs(folder, exist_ok=True)
            if self.atomic_rename:
                tmp = f"{folder}/{TMP_PREFIX}{pysecrets.token_hex(8)}" if folder else f"{TMP_PREFIX}{pysecrets.token_hex(8)}"
                self.fs.pipe_file(tmp, data)
                try:
                    if self.fs.exists(path):
                        self.fs.rm_file(path)  # a partial copy of a cut upload, rewritten whole now
                    self.fs.mv(tmp, path)
                except BaseException:
                    _quietly(lambda: self.fs.rm_file(tmp))
                    raise
            else:
                self.fs.pipe_file(path, data)
            size = self.fs.size(path)
        if size != len(data):
            raise errors.Offline(f"{errors.OFFLINE} (an upload arrived incomplete)")
        self.bytes_up += len(data)

    def delete(self, name: str) -> None:
        with _translated(f"delete {name}", self.kind):
            try:
                self.fs.rm_file(self._path(name))
            except FileNotFoundError:
                pass

    def close(self) -> None:
        for closer in ("close", "close_session"):
            fn = getattr(self.fs, closer, None)
            if callable(fn) and closer == "close":
                _quietly(fn)


def open_target(url: str) -> Target:
    """The sync place a URL names; raises errors.CannotSync for a URL memoir cannot use."""
    url = (url or "").strip()
    if not url:
        raise errors.CannotSync("No sync place is set: give a folder, a WebDAV address or an S3 bucket.")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt"):  # C:\… is a path, not a scheme
        # Each kind of place loads its own library, only when used (s3fs brings botocore: a second).
        from fsspec.implementations.local import LocalFileSystem

        path = unquote(parts.path) if scheme == "file" else url
        if scheme == "file" and parts.netloc:
            path = f"//{parts.netloc}{path}"  # file://server/share
        path = os.path.expanduser(path)
        if not os.path.isabs(path):
            # A word typed after `sync` ("status") would otherwise become a folder here, and a remembered
            # relative place a different folder for every working directory.
            raise errors.CannotSync(f"{url!r} is not a sync place: give the whole path of a folder (such as "
                                    f"{os.path.abspath(path)}), a webdav(s):// address or an s3:// bucket.",
                                    code="not_a_place")
        path = os.path.abspath(path)
        os.makedirs(path, exist_ok=True)
        return Target(url, LocalFileSystem(), path.replace(os.sep, "/"), atomic_rename=True)
    if scheme in ("webdav", "webdavs", "dav", "davs"):
        from webdav4.fsspec import WebdavFileSystem

        http = "https" if scheme.endswith("s") else "http"
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        user, password = _webdav_login(url, parts)
        fs = WebdavFileSystem(f"{http}://{netloc}", auth=(user, password or "") if user else None, timeout=30,
                              retry=False)
        root = unquote(parts.path).strip("/")
        with _translated("open the WebDAV folder", "webdav"):
            if root and not fs.exists(root):
                fs.makedirs(root, exist_ok=True)
        return Target(url, fs, root, atomic_rename=True, kind="webdav")
    if scheme == "s3":
        try:
            from s3fs import S3FileSystem
        except ImportError:  # the installers leave the AWS libraries out (build.spec: 30 MB for one kind of place)
            raise errors.CannotSync("This copy of memoir cannot reach S3 storage: sync through a folder or WebDAV, "
                                    "or use memoir installed with pip from its source, which can.") from None

        endpoint = os.environ.get(ENV_S3_ENDPOINT) or None
        fs = S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True, use_listings_cache=False,
                          config_kwargs={"retries": {"max_attempts": 2}, "connect_timeout": 10, "read_timeout": 30})
        root = f"{parts.netloc}/{unquote(parts.path).strip('/')}".rstrip("/")
        if not parts.netloc:
            raise errors.CannotSync("An S3 address names its bucket: s3://bucket/folder")
        return Target(url, fs, root, atomic_rename=False, kind="s3")
    raise errors.CannotSync(f"memoir cannot sync to a {scheme}:// address: use a folder, webdav(s):// or s3://.")


def _webdav_login(url: str, parts) -> tuple[str | None, str | None]:
    if os.environ.get(ENV_USER):
        return os.environ[ENV_USER], os.environ.get(ENV_PASSWORD, "")
    if parts.username:  # typed into the address: used, never saved (settings keep describe(url))
        return unquote(parts.username), unquote(parts.password or "")
    saved = secrets.get_sync_login(describe(url))
    return saved if saved else (None, None)


def _quietly(fn) -> None:
    try:
        fn()
    except Exception:
        pass


class _translated:
    """Turns what fsspec's backends raise into errors.py's classes."""

    def __init__(self, doing: str, kind: str):
        self.doing, self.kind = doing, kind

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or isinstance(exc, (errors.SyncError, FileNotFoundError)):
            return False
        mapped = classify(exc, self.kind)
        if mapped is None:
            return False
        log.info("sync target: %s failed (%s)", self.doing, exc.__class__.__name__)
        raise mapped from exc


def classify(exc: BaseException, kind: str = "folder") -> errors.SyncError | None:
    """The sync error an exception from a backend of a `kind` of place means; None for one that is not
    the target's."""
    status = _status(exc)
    name = f"{type(exc).__module__}.{type(exc).__name__}"
    text = str(exc)
    if status in (401, 403) or isinstance(exc, PermissionError) or "AccessDenied" in text \
            or "InvalidAccessKeyId" in text or "SignatureDoesNotMatch" in text:
        return errors.AccessRefused(errors.access(kind))
    if name.endswith(("NoCredentialsError", "PartialCredentialsError")):
        return errors.AccessRefused(errors.NO_CREDENTIALS_S3)
    if status == 507 or "QuotaExceeded" in text or "EntityTooLarge" in text or "InsufficientStorage" in text \
            or (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)):
        return errors.TargetFull(errors.FULL)
    if "NoSuchBucket" in text:
        return errors.CannotSync("That S3 bucket does not exist (or this account cannot see it).")
    offline_names = ("ConnectError", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout",
                     "RemoteProtocolError", "ReadError", "WriteError", "NetworkError", "TimeoutException",
                     "EndpointConnectionError", "ConnectionClosedError", "ReadTimeoutError",
                     "ConnectTimeoutError", "ClientConnectorError", "ClientOSError", "ServerDisconnectedError",
                     "ClientPayloadError", "ServerTimeoutError", "IncompleteRead")
    if isinstance(exc, (ConnectionError, TimeoutError)) or any(name.endswith(n) for n in offline_names):
        return errors.Offline(errors.OFFLINE)
    if status is not None and status >= 500:
        return errors.Offline(errors.OFFLINE)
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc:
        return classify(cause, kind)
    if isinstance(exc, OSError):
        return errors.SyncError(f"The sync place answered with an error ({exc.__class__.__name__}: {exc}).")
    return None


def _status(exc: BaseException) -> int | None:
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    if isinstance(code, int):
        return code
    if isinstance(response, dict):
        code = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if isinstance(code, int):
            return code
    return None
