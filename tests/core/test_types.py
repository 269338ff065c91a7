"""pyright (basic mode, configured in pyproject.toml) finds no type error in what it checks (core, mcp,
viewmodels, the CLI and the UI's runners), on
README's plain install; the code for the minilm extra is checked again where the extra is installed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.minilm import needs_minilm

ROOT = Path(__file__).resolve().parents[2]


def _pyright_errors(*paths: str) -> tuple[list[str], int]:
    # --pythonpath: the packages of the interpreter running the tests, activated or not.
    r = subprocess.run([sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable, *paths],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    report = json.loads(r.stdout)
    errors = [f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}"
              for d in report["generalDiagnostics"] if d["severity"] == "error"]
    return errors, report["summary"]["filesAnalyzed"]


@pytest.mark.slow
def test_the_checked_code_type_checks_clean():
    errors, analysed = _pyright_errors()
    assert analysed > 120
    assert errors == [], "\n".join(errors[:30])


@pytest.mark.slow
@needs_minilm
def test_the_minilm_code_type_checks_with_its_packages():
    errors, _ = _pyright_errors("memoir_desktop/core/search_models/embedder.py")
    assert errors == [], "\n".join(errors[:30])


@pytest.mark.slow
def test_ruff_finds_nothing():
    """The house style (pyproject.toml's [tool.ruff]) over the package and the tests."""
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "memoir_desktop", "tests"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
