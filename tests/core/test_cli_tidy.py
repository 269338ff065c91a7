"""memoir-cli tidy: lists numbered merges, applies the chosen ones, undoes one; bad input merges nothing."""

import json

import pytest

from memoir_desktop import cli
from memoir_desktop.core import Memoir, logs
from tests.fakes.memory_keyring import MemoryKeyring

PASS = "tidy passphrase"


@pytest.fixture(autouse=True)
def _cli_env(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "_configured", True)
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", PASS)
    MemoryKeyring._store.clear()
    with Memoir.open(tmp_path / "home", passphrase=PASS) as m:
        m.add(["I drink coffee every morning", "i drink coffee every morning!",
               "My sister lives in Busan", "My sister lives in Busan."], infer=False)
    yield
    MemoryKeyring._store.clear()


def run(capsys, *args) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def active(capsys) -> list[str]:
    code, out, _ = run(capsys, "--json", "memories")
    return sorted(m["memory"] for m in json.loads(out))


def test_tidy_lists_numbered_merges_of_what_the_user_agreed_to(capsys):
    assert run(capsys, "tidy")[1].strip() == "(nothing to tidy)"  # typed by the user: left out by default
    code, out, _ = run(capsys, "tidy", "--include-edited")
    assert code == 0
    assert "1. " in out and "2. " in out and "→ “My sister lives in Busan.”" in out, out


def test_tidy_apply_one_then_undo_it(capsys):
    code, out, err = run(capsys, "--json", "tidy", "--include-edited", "--apply", "1")
    assert code == 0, err
    [done] = json.loads(out)
    assert len(active(capsys)) == 3
    code, out, err = run(capsys, "tidy", "--undo", done["merged_id"])
    assert code == 0 and "2 memories are back" in out, err
    assert len(active(capsys)) == 4


def test_tidy_all_merges_every_proposal(capsys):
    assert run(capsys, "tidy", "--include-edited", "--all")[0] == 0
    assert active(capsys) == ["My sister lives in Busan.", "i drink coffee every morning!"]


def test_bad_numbers_and_ids_exit_2_and_merge_nothing(capsys):
    code, _, err = run(capsys, "tidy", "--include-edited", "--apply", "1", "7")
    assert code == 2 and "no proposal 7" in err and "nothing was merged" in err, err
    assert len(active(capsys)) == 4
    code, _, err = run(capsys, "tidy", "--undo", "not-a-memory")
    assert code == 2 and "not-a-memory" in err, err
    for args in (["--apply", "one"], ["--all", "--undo", "x"]):
        with pytest.raises(SystemExit) as exit_:
            cli.main(["tidy", *args])
        assert exit_.value.code == 2
    assert len(active(capsys)) == 4
