"""The core stays free of Qt: the GUI, CLI and tests all drive the same Qt-free facade."""

import subprocess
import sys


def test_core_imports_no_qt():
    code = (
        "import sys, memoir_desktop.core, memoir_desktop.core.memory, memoir_desktop.cli\n"
        "import pkgutil, importlib, memoir_desktop.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'memoir_desktop.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_core_import_is_light():
    """Importing the core must not import torch / sentence-transformers (seconds of start-up)."""
    code = ("import sys, memoir_desktop.core\n"
            "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules]\n"
            "print(heavy); sys.exit(1 if heavy else 0)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
