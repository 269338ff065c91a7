"""A sync place that refuses this computer says what to check for that kind of place, and memoir-cli exits
with its own status (6), never the passphrase's (4): an S3 storage that checks its access keys (moto's
server with authentication on), a WebDAV server with a wrong password, and a word that is not a place."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request

import pytest

from memoir_desktop.core import Memoir
from tests.cli_in_process import run_cli
from tests.sync.conftest import PASS
from tests.sync.servers import WEBDAV_USER, free_port


@pytest.fixture(scope="module")
def strict_s3():
    """An S3 server that checks every request's access key, as Amazon's and MinIO's do."""
    port = free_port()
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url, timeout=1)
            break
        except urllib.error.HTTPError:
            break  # it answers (refusing an unsigned request)
        except OSError:
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(10)


def journal(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home, passphrase=PASS) as mem:
        mem.journal.write("Walked along the river")
    return home


def cli(home, *args, **env):
    return run_cli(*args, env={"MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": PASS, **env})


def test_an_s3_key_the_storage_does_not_know(tmp_path, strict_s3, monkeypatch):
    home = journal(tmp_path)
    r = cli(home, "sync", "s3://journal-bucket/memoir", AWS_ACCESS_KEY_ID="AKIANOTAKEY", AWS_SECRET_ACCESS_KEY="x",
            AWS_DEFAULT_REGION="us-east-1", MEMOIR_S3_ENDPOINT=strict_s3)
    assert r.returncode == 6, r.stderr
    assert "AWS_ACCESS_KEY_ID" in r.stderr and "access key" in r.stderr
    assert "MEMOIR_SYNC_USER" not in r.stderr and "user name or password" not in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_no_s3_key_at_all(tmp_path, strict_s3, monkeypatch):
    home = journal(tmp_path)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    r = cli(home, "sync", "s3://journal-bucket/memoir", AWS_DEFAULT_REGION="us-east-1", MEMOIR_S3_ENDPOINT=strict_s3)
    assert r.returncode == 6, r.stderr
    assert "no access key" in r.stderr and "AWS_ACCESS_KEY_ID" in r.stderr
    assert "NoCredentialsError" not in r.stderr


def test_a_webdav_password_the_server_refuses(tmp_path, webdav_server):
    home = journal(tmp_path)
    r = cli(home, "sync", webdav_server.url("refused-cli"), MEMOIR_SYNC_USER=WEBDAV_USER,
            MEMOIR_SYNC_PASSWORD="not the password")
    assert r.returncode == 6, r.stderr
    assert "MEMOIR_SYNC_USER" in r.stderr and "AWS" not in r.stderr


def test_a_word_after_sync_is_not_made_a_folder(tmp_path, monkeypatch):
    home = journal(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = cli(home, "sync", "status")
    assert r.returncode == 2 and "not a sync place" in r.stderr, r.stderr
    assert not (tmp_path / "status").exists()
    with Memoir.open(home, passphrase=PASS) as mem:
        assert mem.settings.sync_url == ""
