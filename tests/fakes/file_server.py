"""A local HTTP file server standing in for a download site (PyPI, a release page)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    delay_per_mb = 0.0  # a slow line, for tests that act during a download

    def log_message(self, *args) -> None:  # keep test output readable
        pass

    def copyfile(self, source, outputfile) -> None:
        if not self.delay_per_mb:
            return super().copyfile(source, outputfile)
        try:
            while block := source.read(1 << 20):
                outputfile.write(block)
                time.sleep(self.delay_per_mb)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: that is what the test wanted


@contextlib.contextmanager
def serve_directory(folder: Path, delay_per_mb: float = 0.0) -> Iterator[str]:
    """Serve `folder` on 127.0.0.1; yields the base URL (no trailing slash)."""
    handler_class = type("_Handler", (_QuietHandler,), {"delay_per_mb": delay_per_mb})
    handler = functools.partial(handler_class, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
