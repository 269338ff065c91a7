"""memoir-cli sync: a round, the address remembered (never a password), joining into an empty home."""

import json

from memoir_desktop.core import Memoir
from tests.cli_in_process import run_cli
from tests.sync.conftest import PASS
from tests.sync.servers import WEBDAV_PASSWORD, WEBDAV_USER


def cli(home, *args, env_extra=None, passphrase=PASS):
    return run_cli(*args, env={"MEMOIR_HOME": str(home), "MEMOIR_PASSPHRASE": passphrase, **(env_extra or {})})


def test_cli_sync_join_and_remembered_address(tmp_path, webdav_server):
    url = webdav_server.url("cli")
    typed = url.replace("webdav://", f"webdav://{WEBDAV_USER}:{WEBDAV_PASSWORD}@")  # a login typed into the address
    laptop, desk = tmp_path / "laptop", tmp_path / "desk"
    with Memoir.open(laptop, passphrase=PASS) as mem:
        mem.journal.write("Fed the ducks at the pond")
    r = cli(laptop, "--json", "sync", typed)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["pushed"] >= 1
    saved = json.loads((laptop / "settings.json").read_text())
    assert saved["sync_url"] == url and WEBDAV_PASSWORD not in (laptop / "settings.json").read_text()
    login = {"MEMOIR_SYNC_USER": WEBDAV_USER, "MEMOIR_SYNC_PASSWORD": WEBDAV_PASSWORD}
    r = cli(desk, "sync", url, env_extra=login, passphrase="not the passphrase")
    assert r.returncode == 4 and "does not open" in r.stderr and "Traceback" not in r.stderr
    assert not (desk / "memoir.key").exists()
    r = cli(desk, "sync", url, env_extra=login)
    assert r.returncode == 0, r.stderr
    assert "joined" in r.stdout and "1 entry" in r.stdout
    with Memoir.open(desk, passphrase=PASS) as mem:
        mem.journal.write("The ducks were back on Sunday")
    r = cli(desk, "sync", env_extra=login)  # no address: the remembered one
    assert r.returncode == 0 and "sent" in r.stdout, r.stderr
    r = cli(laptop, "sync", env_extra=login)
    assert r.returncode == 0, r.stderr
    with Memoir.open(laptop, passphrase=PASS) as mem:
        assert sorted(e["content"] for e in mem.journal.entries()) == ["Fed the ducks at the pond",
                                                               "The ducks were back on Sunday"]
