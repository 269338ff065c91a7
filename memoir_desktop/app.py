"""memoir-desktop entry point. The GUI lives in `memoir_desktop.ui`; Qt is imported here only."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from memoir_desktop.ui.main import run

    return run(sys.argv if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
