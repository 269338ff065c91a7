"""Print the shell command README.md gives under `<!-- ci:NAME -->` (the fenced block right after it).

CI runs README's own commands, read from README itself, so the two cannot drift apart.
    python .ci/readme_commands.py setup
"""

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def command(name: str, text: str | None = None) -> str:
    text = README.read_text("utf-8") if text is None else text
    found = re.search(rf"<!-- ci:{re.escape(name)} -->\s*```[a-z]*\n(.*?)\n```", text, re.S)
    if not found:
        raise SystemExit(f"README.md has no command marked <!-- ci:{name} -->")
    lines = [line for line in found.group(1).splitlines() if line.strip()]
    if len(lines) != 1:
        raise SystemExit(f"README.md's ci:{name} block must hold one command line, not {len(lines)}")
    return lines[0].strip()


if __name__ == "__main__":
    print(command(sys.argv[1]))
