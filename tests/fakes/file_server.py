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
    # Byte ranges ("Range: bytes=N-") answered with 206, and the connection dropped after
    # `cut_after` bytes for the first `cuts` requests: a line that fails mid-download.
    ranges = False
    cut_after = 0
    state: dict = {}  # per server: {"cuts": n, "ranges": [asked...]}

    def log_message(self, *args) -> None:  # keep test output readable
        pass

    def do_GET(self) -> None:
        if not (self.ranges or self.cut_after):
            return super().do_GET()
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        asked = self.headers.get("Range")
        self.state.setdefault("ranges", []).append(asked)
        start = int(asked.split("=")[1].split("-")[0]) if (asked and self.ranges) else 0
        if start >= len(data) and start:
            self.send_response(416)
            self.end_headers()
            return
        body = data[start:]
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.cut_after and self.state.get("cuts", 0) > 0:
            self.state["cuts"] -= 1
            body = body[:self.cut_after]
            self.close_connection = True
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
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
def serve_directory(folder: Path, delay_per_mb: float = 0.0, *, ranges: bool = False, cut_after: int = 0,
                    cuts: int = 0, state: dict | None = None) -> Iterator[str]:
    """Serve `folder` on 127.0.0.1; yields the base URL (no trailing slash). `state` (a dict the
    test keeps) records the Range header of each request."""
    state = state if state is not None else {}
    state["cuts"] = cuts
    handler_class = type("_Handler", (_QuietHandler,), {"delay_per_mb": delay_per_mb, "ranges": ranges,
                                                         "cut_after": cut_after, "state": state})
    handler = functools.partial(handler_class, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
