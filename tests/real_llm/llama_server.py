"""Start and stop a real llama.cpp server (llama-cpp-python's `llama_cpp.server`) for tests and for
recording what it answers (tests/tools/record_llama_cpp.py).

The server runs in its own process, as a diarist runs it: `python -m llama_cpp.server --model FILE
--chat_format chatml --n_threads 2`. Some CPUs (seen on a Firecracker VM reporting AMX) crash in
llama.cpp's weight-repacking kernels on the first generation; then the server is started again
without them (`--no-extra-bufts`, read by this module run as a script), which is slower but answers.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

MODELS = {"qwen": "qwen0.5b.gguf", "smollm2": "smollm2.gguf"}
READY_S = 120.0  # loading a 500 MB model on a busy two-core machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LlamaServer:
    model: Path
    port: int
    extra_bufts: bool = True
    log: Path | None = None
    # llama-cpp-python's server reuses only the last prompt's beginning unless started with --cache true
    # (llama.cpp's own llama-server keeps them by default). With it, entries here took about as long and
    # the server stopped once in twelve: the tests start it without.
    cache: bool = False
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> LlamaServer:
        cmd = [sys.executable, __file__, "--model", str(self.model), "--chat_format", "chatml",
               "--n_threads", "2", "--port", str(self.port), "--host", "127.0.0.1"]
        if not self.extra_bufts:
            cmd.append("--no-extra-bufts")
        if self.cache:
            cmd += ["--cache", "true"]
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115 (lives with the process)
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + READY_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode} while loading {self.model}")
            try:
                if httpx.get(self.url + "/models", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer within {READY_S:.0f} s")

    def generates(self) -> bool:
        """One token of plain chat: False when the server died doing it (the repacking crash)."""
        try:
            httpx.post(self.url + "/chat/completions", timeout=120.0,
                       json={"model": "m", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1})
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
        return self.proc is not None and self.proc.poll() is None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """As a crash or a closed laptop lid would: no goodbye to clients mid-request."""
        if self.running:
            assert self.proc is not None
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.running:
            assert self.proc is not None
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


_repacking_crashes = False  # learnt once per process: every later server starts without it


def start_working(model: Path, *, log: Path | None = None, cache: bool = False) -> LlamaServer:
    """A server on a free port that has generated a token (restarted without the repacking kernels
    when they crash it)."""
    global _repacking_crashes
    if not _repacking_crashes:
        server = LlamaServer(model, free_port(), log=log, cache=cache).start()
        if server.generates():
            return server
        server.stop()
        _repacking_crashes = True
    server = LlamaServer(model, free_port(), extra_bufts=False, log=log, cache=cache).start()
    if not server.generates():
        server.stop()
        raise RuntimeError(f"llama_cpp.server crashes generating with {model.name}, also without repacking")
    return server


def _serve(argv: list[str]) -> None:
    if "--no-extra-bufts" in argv:
        argv.remove("--no-extra-bufts")
        import llama_cpp.llama_cpp as low  # the module llama.py reads its default parameters from

        defaults = low.llama_model_default_params

        def without_extra_bufts():
            params = defaults()
            params.use_extra_bufts = False
            return params

        low.llama_model_default_params = without_extra_bufts
    import runpy

    sys.argv = ["llama_cpp.server", *argv]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    _serve(sys.argv[1:])
