"""A fresh process (memoir-cli, the server another app starts, the app itself) pays only for what it uses.

Every memoir-cli call and every MCP server is a new process: a package imported for nothing is paid
on each of them. qdrant-client (about a second) serves only unencrypted journals, the openai SDK
(most of a second) only a call to a model, networkx only tidying and the graph view.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import sys
from memoir_desktop.cli import main
assert main(["journal", "오늘은 한강 공원에서 자전거를 탔다"]) in (0, 3)  # 3: no model to make memories
assert main(["search", "자전거"]) == 0
assert main(["search", "bicycle"]) == 0
print(sorted(n for n in ("qdrant_client", "openai", "networkx") if n in sys.modules))
"""


def test_journalling_and_searching_an_encrypted_journal_import_nothing_they_do_not_use(tmp_path):
    env = {"PATH": str(Path(sys.executable).parent), "HOME": str(tmp_path), "MEMOIR_HOME": str(tmp_path / "home"),
           "MEMOIR_PASSPHRASE": "start-up test passphrase", "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    r = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout + r.stderr
