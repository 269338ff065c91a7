"""memoir-desktop entry point. The GUI lives in `memoir_desktop.ui`; Qt is imported here only."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv if argv is None else argv
    from memoir_desktop.core.keys.private_files import owner_only_umask

    owner_only_umask()  # before anything is written: every file 0600, every folder 0700
    if len(argv) > 1 and argv[1] == "mcp":
        # Other AI tools start the installed app as their memory server (`memoir-desktop mcp`, as
        # `memoir-cli mcp`): no window, no Qt, the protocol alone on stdout.
        from memoir_desktop.cli import main as cli_main

        return cli_main(argv[1:])
    from memoir_desktop.ui.main import run

    return run(argv)


if __name__ == "__main__":
    raise SystemExit(main())
