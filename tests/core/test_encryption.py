"""A diary no one else can read: encryption at rest, keys, conversion, encrypted export."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_desktop.core import Memoir
from memoir_desktop.core.archive import backup, conversion
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.keys.crypto import PassphraseNeeded, WrongPassphrase
from tests.fakes.memory_keyring import MemoryKeyring

ENTRY = "오늘 제주 바닷가에서 한라봉을 잔뜩 먹었다 tangerine-diary-7781"
MEMORY = "나는 고양이 나비를 키운다 cat-named-nabi-4410"
PASS = "correct horse battery staple"
ROOT = Path(__file__).resolve().parents[2]


def _encodings(text: str) -> list[bytes]:
    out = []
    for t in (text, *text.split()):
        if len(t) >= 4:
            out += [t.encode("utf-8"), t.encode("utf-16-le"), t.encode("utf-16-be")]
    return out


def files_holding(home: Path, *texts: str) -> list[str]:
    """Every file under `home` holding any of the texts (or a word of them) in UTF-8 or UTF-16."""
    needles = [n for t in texts for n in _encodings(t)]
    hits = []
    for p in sorted(home.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            hits += [f"{p.relative_to(home)}" for n in needles if n in data][:1]
    return hits


def snapshot(home: Path) -> dict:
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(home.rglob("*")) if p.is_file()}


def _write_journal(home: Path, **open_args) -> None:
    with Memoir.open(home, **open_args) as m:
        m.journal.write(ENTRY)
        m.add([MEMORY], infer=False)
        assert m.search("고양이")["results"][0]["memory"] == MEMORY
        m.archive.backup_now()


@pytest.fixture(autouse=True)
def _fresh_keyring():
    MemoryKeyring._store.clear()
    yield
    MemoryKeyring._store.clear()


def test_a_closed_journal_holds_no_text_anywhere_under_its_folder(tmp_path):
    home = tmp_path / "home"
    _write_journal(home)
    with Memoir.open(home) as m:  # a second open: the daily backup, reconcile, a search
        assert m.keys.encrypted
        assert [e["content"] for e in m.journal.entries()] == [ENTRY]
        assert m.search("고양이")["results"][0]["memory"] == MEMORY
        m.archive.backup_now()
    assert backup.list_backups(home), "a backup was made"
    names = {p.name for p in home.rglob("*") if p.is_file()}
    assert "memoir.db" in names and crypto.KEY_FILE in names
    assert files_holding(home, ENTRY, MEMORY) == []
    # The scan itself can fail: the same journal written plain shows the texts.
    plain = tmp_path / "plain"
    _write_journal(plain, encrypt=False)
    found = files_holding(plain, ENTRY, MEMORY)
    assert "memoir.db" in found and any(f.startswith("backups/") for f in found)


def test_the_key_file_holds_no_key_and_no_passphrase(tmp_path):
    home = tmp_path / "home"
    os.environ[crypto.ENV_PASSPHRASE] = PASS
    with Memoir.open(home) as m:
        key = m.keys.data_key
        recovery = m.keys.take_recovery_key()
        assert m.keys.take_recovery_key() is None  # shown once
    assert key is not None and recovery
    text = (home / crypto.KEY_FILE).read_bytes()
    for secret in (key, key.hex().encode(), PASS.encode(), crypto.normalize_recovery(recovery).encode()):
        assert secret not in text
    assert not any(str(v).find(key.hex()) >= 0 for v in MemoryKeyring._store.values())


@pytest.mark.real_kdf
def test_a_new_journal_and_an_encrypted_export_cost_a_guesser_64_mib_and_three_passes(tmp_path):
    """The other tests make passphrase slots with quick costs (tests/conftest.py); this one has the
    product's: what a stolen key file or export makes a passphrase guesser pay, per guess."""
    import json

    want = {"name": "argon2id", "time_cost": 3, "memory_kib": 64 * 1024, "parallelism": 4}
    with Memoir.open(tmp_path / "home", passphrase=PASS) as m:
        m.journal.write(ENTRY)
        m.archive.export(tmp_path / "out.memoir", passphrase="export passphrase")
    slot = json.loads((tmp_path / "home" / crypto.KEY_FILE).read_text("utf-8"))["passphrase"]
    assert slot["kdf"] == want
    blob = (tmp_path / "out.memoir").read_bytes()[len(crypto.SEALED_MAGIC):]
    header = json.loads(blob[4:4 + int.from_bytes(blob[:4], "big")])
    assert header["kdf"] == want


def test_wrong_passphrase_is_refused_clearly_and_changes_nothing(tmp_path):
    home = tmp_path / "home"
    os.environ[crypto.ENV_PASSPHRASE] = PASS
    _write_journal(home)
    before = snapshot(home)
    os.environ[crypto.ENV_PASSPHRASE] = "not the passphrase"
    with pytest.raises(WrongPassphrase, match="does not open this journal. Nothing was changed"):
        Memoir.open(home)
    with pytest.raises(WrongPassphrase):
        Memoir.open(home, passphrase="also wrong!!")
    assert snapshot(home) == before
    os.environ[crypto.ENV_PASSPHRASE] = PASS
    with Memoir.open(home) as m:
        assert m.keys.via == "passphrase"
        assert [e["content"] for e in m.journal.entries()] == [ENTRY]


def test_the_keyring_opens_without_a_prompt_and_its_loss_asks_for_the_passphrase(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home, passphrase=PASS) as m:
        assert m.keys.has_passphrase
    with Memoir.open(home) as m:
        assert m.keys.via == "keyring"
    MemoryKeyring._store.clear()  # another computer, or the keyring was reset
    with pytest.raises(PassphraseNeeded, match="keyring does not hold"):
        Memoir.open(home)
    with Memoir.open(home, passphrase=PASS) as m:
        assert [e["content"] for e in m.journal.entries()] == []


def test_the_recovery_key_opens_the_journal(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home) as m:  # keyring only, no passphrase
        recovery = m.keys.take_recovery_key()
        m.journal.write(ENTRY)
    MemoryKeyring._store.clear()
    with pytest.raises(PassphraseNeeded):
        Memoir.open(home)
    with Memoir.open(home, passphrase=recovery.lower()) as m:
        assert m.keys.via == "recovery"
        assert [e["content"] for e in m.journal.entries()] == [ENTRY]
        m.keys.set_passphrase(PASS)  # the way back to a passphrase, without the old one
    with Memoir.open(home, passphrase=PASS) as m:
        assert [e["content"] for e in m.journal.entries()] == [ENTRY]
    wrong = crypto.new_recovery_key()
    with pytest.raises(WrongPassphrase):
        Memoir.open(home, passphrase=wrong)


def test_changing_the_passphrase_rewraps_the_key_without_reencrypting(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home, passphrase=PASS) as m:
        m.journal.write(ENTRY)
    db_before = hashlib.sha256((home / "memoir.db").read_bytes()).hexdigest()
    with Memoir.open(home, passphrase=PASS, reconcile=False, backups_keep=0) as m:
        with pytest.raises(WrongPassphrase):
            m.keys.set_passphrase("a new passphrase", current="not it at all")
        m.keys.set_passphrase("a new passphrase", current=PASS)
    MemoryKeyring._store.clear()
    with pytest.raises(WrongPassphrase):
        Memoir.open(home, passphrase=PASS)
    assert hashlib.sha256((home / "memoir.db").read_bytes()).hexdigest() == db_before
    with Memoir.open(home, passphrase="a new passphrase") as m:
        assert [e["content"] for e in m.journal.entries()] == [ENTRY]


def test_without_a_keyring_a_new_journal_needs_a_passphrase_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(crypto, "keyring_available", lambda: False)
    with pytest.raises(PassphraseNeeded, match="No system keyring"):
        Memoir.open(tmp_path / "home")
    assert not (tmp_path / "home" / "memoir.db").exists()
    with pytest.raises(PassphraseNeeded, match="at least 8"):
        Memoir.open(tmp_path / "home", passphrase="short")
    os.environ[crypto.ENV_PASSPHRASE] = PASS
    with Memoir.open(tmp_path / "home") as m:
        assert m.keys.encrypted and m.keys.via == "new"
        assert not m.keys.key_file.uses_keyring
    with Memoir.open(tmp_path / "home") as m:
        assert m.keys.via == "passphrase"


def test_app_lock_refuses_the_keyring_at_start(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home, passphrase=PASS) as m:
        assert m.keys.check_passphrase(PASS) and not m.keys.check_passphrase("nope nope nope")
    with pytest.raises(PassphraseNeeded, match="locked"):
        Memoir.open(home, ask_passphrase=True)
    with Memoir.open(home, ask_passphrase=True, passphrase=PASS) as m:
        assert m.keys.via == "passphrase"


def test_encrypted_backups_restore_under_the_same_key(tmp_path):
    home = tmp_path / "home"
    with Memoir.open(home) as m:
        m.add(["first fact"], infer=False)
        taken = Path(m.archive.backup_now())
        m.add(["second fact"], infer=False)
    assert not taken.read_bytes().startswith(b"SQLite format 3")
    backup.restore_backup(home, taken)
    with Memoir.open(home) as m:
        assert [x["memory"] for x in m.get_all()["results"]] == ["first fact"]
        assert m.search("first")["results"][0]["memory"] == "first fact"


def test_encrypted_export_opens_elsewhere_with_its_passphrase_only(tmp_path):
    with Memoir.open(tmp_path / "a") as m:
        m.journal.write(ENTRY)
        m.add([MEMORY], infer=False)
        m.archive.export(tmp_path / "out.memoir", passphrase=PASS)
        m.archive.export(tmp_path / "plain.json")
    assert files_holding(tmp_path, ENTRY, MEMORY) == ["plain.json"]
    MemoryKeyring._store.clear()  # another computer
    with Memoir.open(tmp_path / "b", passphrase="b's own passphrase") as other:
        from memoir_desktop.core.archive.transfer import PassphraseRequired

        with pytest.raises(PassphraseRequired):
            other.archive.import_file(tmp_path / "out.memoir")
        with pytest.raises(WrongPassphrase, match="Nothing was imported"):
            other.archive.import_file(tmp_path / "out.memoir", passphrase="wrong passphrase")
        assert other.journal.entries() == []
        got = other.archive.import_file(tmp_path / "out.memoir", passphrase=PASS)
        assert got["kind"] == "memoir" and got["entries"] == 1
        assert other.search("고양이")["results"][0]["memory"] == MEMORY


def test_a_private_entry_is_journaled_found_locally_and_never_sent(mem, fake_llm):
    private = mem.journal.write("비밀 일기: 새 직장에 지원했다 secret-job-9911", private=True)
    mem.jobs.process()
    assert mem.journal.entry(private)["private"] is True
    assert mem.jobs.all(entry_ids=[private]) == []
    found = mem.search_field.search_entries("직장")
    assert [e["id"] for e in found] == [private]
    mem.journal.write("오늘은 산책을 했다")
    mem.jobs.process()
    mem.companion.chat("요즘 어때?")
    sent = " ".join(str(r) for r in fake_llm.requests)
    assert "secret-job-9911" not in sent
    assert "산책" in sent  # the fake did receive the other entry: the check can fail


def test_a_private_entry_edited_or_moved_is_still_never_sent(mem, fake_llm):
    from datetime import datetime

    private = mem.journal.write("비밀 일기: 병원 검사 결과 secret-scan-4417", private=True)
    mem.journal.edit(private, "비밀 일기: 병원 검사 결과가 괜찮았다 secret-scan-4417")
    mem.journal.move(private, datetime(2026, 3, 9, 21, 0))  # a re-read would send its text
    mem.journal.write("오늘은 장을 봤다")
    mem.jobs.process()
    assert mem.jobs.all(entry_ids=[private]) == []
    sent = " ".join(str(r) for r in fake_llm.requests)
    assert "secret-scan-4417" not in sent and "장을 봤다" in sent


def test_disclosure_tells_this_machine_from_the_cloud():
    from memoir_desktop.core.llm import disclosure

    assert disclosure.describe("", False).where == "none"
    assert "nothing is sent" in disclosure.describe("", False).text()
    assert disclosure.describe("http://127.0.0.1:11434/v1", True).where == "this_machine"
    assert disclosure.describe("http://localhost:1234/v1", True).where == "this_machine"
    assert disclosure.describe("http://192.168.0.7:8000/v1", True).where == "local_network"
    cloud = disclosure.describe("", True)
    assert cloud.where == "cloud" and cloud.host == "api.openai.com" and cloud.leaves_machine
    assert disclosure.describe("https://openrouter.ai/api/v1", True).where == "cloud"
    names = [p.name for p in cloud.sent]
    assert {"extraction", "update", "summary", "answer", "letter"} <= set(names)
    assert "Private entries" in cloud.text() and "비공개 기록" in cloud.text("ko")


# -- conversion ---------------------------------------------------------------------------------

def _plain_journal(home: Path, n: int = 60) -> None:
    with Memoir.open(home, encrypt=False) as m:
        for i in range(n):
            m.journal.write(f"{ENTRY} day {i}")
        m.add([MEMORY], infer=False)
        m.archive.backup_now()
        assert not m.keys.encrypted


_KILLER = """
import os, sys
sys.path.insert(0, {root!r})
os.environ["PYTHON_KEYRING_BACKEND"] = "tests.fakes.memory_keyring.MemoryKeyring"
from pathlib import Path
from memoir_desktop.core.archive import conversion
conversion.CHUNK = 7
calls = []
def progress(done, total):
    calls.append(done)
    if len(calls) == 4:
        os._exit(9)  # killed in the middle of the copy
conversion.convert_to_encrypted(Path({home!r}), passphrase={pw!r}, progress=progress)
"""


def test_a_kill_during_conversion_loses_nothing_and_the_conversion_resumes(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _plain_journal(home)
    assert conversion.is_plain_journal(home)
    script = _KILLER.format(root=str(ROOT), home=str(home), pw=PASS)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=120)
    assert proc.returncode == 9, proc.stderr.decode()[-2000:]
    assert conversion.conversion_pending(home)
    assert (home / "memoir.db").read_bytes().startswith(b"SQLite format 3")  # still the plain file
    # Resumed (another process, the keyring of the first is gone: the passphrase opens the key).
    monkeypatch.setattr(conversion, "CHUNK", 7)
    seen = []
    key = conversion.convert_to_encrypted(home, passphrase=PASS, progress=lambda d, t: seen.append((d, t)))
    # The first run's recovery key was never shown: the resumed run hands back a new one that opens it.
    assert crypto.KeyFile.load(home).unlock_secret(key.recovery_key).via == "recovery"
    assert seen and seen[-1][0] == seen[-1][1] and seen[0][0] > 7  # continued, not restarted
    assert not conversion.conversion_pending(home) and not conversion.is_plain_journal(home)
    with Memoir.open(home, passphrase=PASS) as m:
        assert m.keys.encrypted
        assert sorted(e["content"] for e in m.journal.entries()) == sorted(f"{ENTRY} day {i}" for i in range(60))
        assert m.search("고양이")["results"][0]["memory"] == MEMORY
    assert files_holding(home, ENTRY, MEMORY) == []


def test_conversion_reports_progress_and_keeps_the_vectors(tmp_path):
    home = tmp_path / "O'Brien's journal"  # a quote in the path: the SQL binds it
    _plain_journal(home, n=5)
    seen = []
    key = conversion.convert_to_encrypted(home, progress=lambda d, t: seen.append((d, t)))
    assert key.recovery_key and seen[-1][0] == seen[-1][1]
    assert not (home / "qdrant").exists()
    with Memoir.open(home) as m:
        assert m.index_report["rebuilt"] == []  # the vectors came along: nothing re-embedded
        assert m.search("고양이")["results"][0]["memory"] == MEMORY
    assert files_holding(home, ENTRY, MEMORY) == []


def test_a_copy_that_does_not_match_never_replaces_the_plain_journal(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _plain_journal(home, n=3)
    before = (home / "memoir.db").read_bytes()
    real = conversion._digest
    monkeypatch.setattr(conversion, "_digest", lambda con, schema, table: (0, "x") if schema == "main" and
                        table == "entry" else real(con, schema, table))
    with pytest.raises(conversion.ConversionError, match="plain journal is kept"):
        conversion.convert_to_encrypted(home, passphrase=PASS)
    assert (home / "memoir.db").read_bytes() == before
    assert not (home / conversion.CONVERTING).exists()  # the copy that failed is gone; the next run starts afresh
    assert conversion.conversion_pending(home)  # and `memoir-cli encrypt` knows there is one to finish
    monkeypatch.setattr(conversion, "_digest", real)
    conversion.convert_to_encrypted(home, passphrase=PASS)  # the next run finishes the same conversion
    with Memoir.open(home, passphrase=PASS) as m:
        assert len(m.journal.entries()) == 3


def test_opening_a_journal_whose_conversion_was_killed_finishes_it(tmp_path):
    home = tmp_path / "home"
    _plain_journal(home, n=20)
    script = _KILLER.format(root=str(ROOT), home=str(home), pw=PASS).replace("conversion.CHUNK = 7", "conversion.CHUNK = 3")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=120)
    assert proc.returncode == 9, proc.stderr.decode()[-2000:]
    with Memoir.open(home, passphrase=PASS) as m:  # the app's next start
        assert m.keys.encrypted
        assert len(m.journal.entries()) == 20 and m.search("고양이")["results"][0]["memory"] == MEMORY
    assert not conversion.conversion_pending(home) and not (home / "qdrant").exists()
    assert files_holding(home, ENTRY, MEMORY) == []


def test_a_kill_after_the_swap_leaves_no_plain_backup_or_index_behind(tmp_path, monkeypatch):
    home = tmp_path / "home"
    _plain_journal(home, n=2)
    monkeypatch.setattr(conversion, "_encrypt_backups", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        conversion.convert_to_encrypted(home, passphrase=PASS)
    assert files_holding(home, ENTRY, MEMORY)  # a plain backup and the plain index are still there
    monkeypatch.undo()
    with Memoir.open(home, passphrase=PASS) as m:
        assert len(m.journal.entries()) == 2
    assert files_holding(home, ENTRY, MEMORY) == []
