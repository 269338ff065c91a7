"""Devices (separate homes, each its own Memoir) and the sync places they share."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memoir_desktop.core import Memoir
from tests.sync.servers import S3, WEBDAV_PASSWORD, WEBDAV_USER, Relay, WebDAV

PASS = "a long journal passphrase"


@pytest.fixture(scope="session")
def webdav_server(tmp_path_factory):
    server = WebDAV(tmp_path_factory.mktemp("webdav"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def s3_server():
    server = S3()
    yield server
    server.close()


class Place:
    """A sync place and a way to read every byte it holds."""

    def __init__(self, kind: str, url: str, files):
        self.kind, self.url, self._files = kind, url, files

    def files(self) -> dict[str, bytes]:
        return self._files()


def _folder_files(root: Path):
    return lambda: {str(p.relative_to(root)).replace(os.sep, "/"): p.read_bytes()
                    for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def folder(tmp_path) -> Place:
    root = tmp_path / "Dropbox" / "memoir"
    root.mkdir(parents=True)
    return Place("folder", root.as_uri(), _folder_files(root))


@pytest.fixture
def webdav(webdav_server, monkeypatch, request) -> Place:
    monkeypatch.setenv("MEMOIR_SYNC_USER", WEBDAV_USER)
    monkeypatch.setenv("MEMOIR_SYNC_PASSWORD", WEBDAV_PASSWORD)
    name = f"j-{request.node.name}"[:60].replace("[", "-").replace("]", "")
    return Place("webdav", webdav_server.url(name), _folder_files(webdav_server.root / name))


@pytest.fixture
def s3(s3_server, monkeypatch, request) -> Place:
    for k, v in s3_server.env().items():
        monkeypatch.setenv(k, v)
    bucket = f"b{abs(hash(request.node.nodeid)) % 10**12}"
    s3_server.make_bucket(bucket)
    return Place("s3", f"s3://{bucket}/journal",
                 lambda: {k.removeprefix("journal/"): v for k, v in s3_server.all_objects(bucket).items()})


@pytest.fixture(params=["folder", "webdav", "s3"])
def place(request) -> Place:
    return request.getfixturevalue(request.param)


@pytest.fixture
def relay(webdav_server):
    r = Relay(webdav_server.port)
    yield r
    r.close()


class Devices:
    """Computers of one diarist: the first makes the journal, the others join it from the place."""

    def __init__(self, root: Path, place: Place):
        self.root, self.place = root, place
        self.open: list[Memoir] = []

    def first(self, name: str = "laptop", **overrides) -> Memoir:
        mem = Memoir.open(self.root / name, passphrase=PASS, **overrides)
        self.open.append(mem)
        return mem

    def join(self, name: str, passphrase: str = PASS, **overrides) -> Memoir:
        mem = Memoir.join(self.place.url, passphrase, home=self.root / name, **overrides)
        self.open.append(mem)
        return mem

    def close(self) -> None:
        for mem in self.open:
            try:
                mem.close()
            except Exception:
                pass


@pytest.fixture
def devices(tmp_path, folder):
    d = Devices(tmp_path / "computers", folder)
    yield d
    d.close()


@pytest.fixture
def devices_on(tmp_path, place):
    d = Devices(tmp_path / "computers", place)
    yield d
    d.close()
