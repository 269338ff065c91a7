"""Shared test setup: offscreen Qt, offline models, an in-memory keyring, temp homes."""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["PYTHON_KEYRING_BACKEND"] = "tests.fakes.memory_keyring.MemoryKeyring"
# Every MEMOIR_* variable of the shell that runs the tests (a passphrase, a home, an endpoint) would
# change what a test sees; each test sets the ones it needs. MEMOIR_TEST_* tell the tests where
# their own material is (MEMOIR_TEST_MODELS: tests/real_llm).
for var in [v for v in os.environ if v.startswith("MEMOIR_") and not v.startswith("MEMOIR_TEST_")]:
    os.environ.pop(var, None)

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHARED_DATA = ROOT.parent / "shared" / "data"

import pytest  # noqa: E402


@pytest.fixture
def fake_llm():
    from tests.fakes.fake_llm import FakeLLM

    server = FakeLLM()
    yield server
    server.close()


@pytest.fixture
def without_minilm(monkeypatch):
    """As on a machine without the `minilm` extra (tests/fakes/minilm.py)."""
    from tests.fakes import minilm

    minilm.block(monkeypatch)


@pytest.fixture
def mem(tmp_path, fake_llm):
    """A Memoir on a temporary home, wired to the fake LLM server (fast retries)."""
    from memoir_desktop.core import Memoir

    m = Memoir.open(tmp_path / "home", llm_base_url=fake_llm.url, llm_model="fake-model", llm_max_retries=2)
    m.llm.client.backoff_base = 0.01
    yield m
    m.close()


# A passphrase slot's Argon2id costs 64 MiB and three passes (crypto.ARGON2): about a sixth of a second,
# paid by every new journal and export, a tenth of the suite's time. The parameters are stored with
# each slot and export, so what a test makes opens everywhere; test_encryption.py checks, with the
# real costs (`real_kdf`), that a new journal and an encrypted export record them.
QUICK_ARGON2 = {"time_cost": 1, "memory_kib": 64, "parallelism": 1}


@pytest.fixture(autouse=True)
def _quick_passphrase_kdf(request, monkeypatch):
    if request.node.get_closest_marker("real_kdf") is None:
        from memoir_desktop.core.keys import crypto

        monkeypatch.setattr(crypto, "ARGON2", QUICK_ARGON2)


@pytest.fixture(autouse=True)
def _isolated_environment():
    """Benchmarks and CLIs run in-process may set MEMOIR_* variables; no test sees another's."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)
    from memoir_desktop.core.keys import secrets
    from tests.fakes.memory_keyring import MemoryKeyring

    secrets._session_key = None
    # A key one test saved must not configure the next test's LLM (tests share a worker process).
    MemoryKeyring._store.clear()
