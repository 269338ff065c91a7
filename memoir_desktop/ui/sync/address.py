"""A sync place as the diarist types it and as core/sync reads it.

The core reads `webdav://` / `webdavs://` addresses; a diarist copies `https://…` from a Nextcloud or
a NAS page, so the form shows and takes that, and the address saved is the core's. A folder stays a
plain path. Nothing secret is ever part of the address saved (a login goes to the keyring)."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

FOLDER, WEBDAV, S3 = "folder", "webdav", "s3"


def kind_of(url: str) -> str:
    scheme = urlsplit(url.strip()).scheme.lower()
    if scheme in ("webdav", "webdavs", "dav", "davs", "http", "https"):
        return WEBDAV
    if scheme == "s3":
        return S3
    return FOLDER


def webdav_url(typed: str) -> str:
    """https://host/path → webdavs://host/path (http → webdav); one in the core's form stays as it is."""
    typed = typed.strip()
    parts = urlsplit(typed)
    scheme = {"https": "webdavs", "http": "webdav"}.get(parts.scheme.lower())
    if scheme is None:
        if not parts.scheme and typed:
            return f"webdavs://{typed}"  # "cloud.example.com/dav": the safe default
        return typed
    return parts._replace(scheme=scheme).geturl()


def webdav_shown(url: str) -> str:
    """The form's https:// address for a saved webdav(s):// one."""
    parts = urlsplit(url)
    scheme = {"webdavs": "https", "davs": "https", "webdav": "http", "dav": "http"}.get(parts.scheme.lower())
    return parts._replace(scheme=scheme).geturl() if scheme else url


def with_login(url: str, user: str, password: str) -> str:
    """The address with a login in it, for one call that must use a login not in the keyring (a test of
    what was typed, or a login kept for this session only). The core never saves this form."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # an IPv6 address keeps its brackets
    netloc = f"{host}:{parts.port}" if parts.port else host
    login = f"{quote(user, safe='')}:{quote(password, safe='')}@"
    return parts._replace(netloc=login + netloc).geturl()
