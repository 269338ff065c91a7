"""pyright (basic mode, configured in pyproject.toml) finds no type error in core/."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_core_type_checks_clean():
    r = subprocess.run([sys.executable, "-m", "pyright", "--outputjson"], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    report = json.loads(r.stdout)
    errors = [f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}"
              for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert report["summary"]["filesAnalyzed"] > 40
    assert errors == [], "\n".join(errors[:30])
