"""memoir-cli run in the test's own process: `cli.main(argv)` with the environment and output of a fresh one.

A subprocess per call paid Python's start, the imports and the analyser's load every time (an
18-call test took a minute). Each call here starts as a new process would: the given environment
only for the call, an empty keyring (a headless process has none, so the passphrase opens the
journal), and its own stdout and stderr. What only a real process shows (the exit status the shell
sees, no traceback on a crash) keeps its own subprocess tests (test_cli.py, test_start_up_cost.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Iterator

from memoir_desktop import cli
from memoir_desktop.core import logs
from tests.fakes.memory_keyring import MemoryKeyring


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """memoir-cli `args`; returncode, stdout and stderr as `subprocess.run(..., text=True)` gives them."""
    out, err = io.StringIO(), io.StringIO()
    kept = dict(MemoryKeyring._store)  # the test's own keyring, as a separate process leaves it
    MemoryKeyring._store.clear()
    configured, logs._configured = logs._configured, True  # the test run's logging stays as it is
    try:
        with _environment(env or {}), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(list(args))
            except SystemExit as exc:  # argparse on bad usage
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        logs._configured = configured
        MemoryKeyring._store.clear()
        MemoryKeyring._store.update(kept)
    return subprocess.CompletedProcess(["memoir-cli", *args], code, out.getvalue(), err.getvalue())
