"""How an evaluation command ends: the table on the terminal, the raw results as JSON when asked."""

from __future__ import annotations

import json
from pathlib import Path


def show(results, table: str, json_path: str | None) -> int:
    print(table)
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=1, ensure_ascii=False), "utf-8")
    return 0
