"""Real sync places on 127.0.0.1 for the sync tests: a WebDAV server (wsgidav under cheroot, in a
thread), S3 (moto in server mode) and a TCP relay that can cut a connection in the middle."""

from __future__ import annotations

import logging
import socket
import threading
from pathlib import Path

WEBDAV_USER, WEBDAV_PASSWORD = "diarist", "dav-pass-1234"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDAV:
    def __init__(self, root: Path):
        from cheroot import wsgi
        from wsgidav.wsgidav_app import WsgiDAVApp

        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.port = free_port()
        app = WsgiDAVApp({
            "host": "127.0.0.1", "port": self.port,
            "provider_mapping": {"/": str(root)},
            "http_authenticator": {"domain_controller": None, "accept_basic": True, "accept_digest": False,
                                   "default_to_digest": False},
            "simple_dc": {"user_mapping": {"*": {WEBDAV_USER: {"password": WEBDAV_PASSWORD}}}},
            "verbose": 0, "logging": {"enable_loggers": []}, "property_manager": True, "lock_storage": True,
        })
        logging.getLogger("wsgidav").setLevel(logging.ERROR)
        self.server = wsgi.Server(("127.0.0.1", self.port), app, numthreads=4)
        self.server.prepare()
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()

    def url(self, path: str = "journal", port: int | None = None) -> str:
        return f"webdav://127.0.0.1:{port or self.port}/{path}"

    def close(self) -> None:
        self.server.stop()
        self.thread.join(5)


class S3:
    BUCKET = "memoir-sync"

    def __init__(self):
        from moto.server import ThreadedMotoServer

        self.port = free_port()
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        return {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                "MEMOIR_S3_ENDPOINT": self.endpoint}

    def make_bucket(self, name: str) -> None:
        import boto3

        boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="testing", aws_secret_access_key="testing",
                     region_name="us-east-1").create_bucket(Bucket=name)

    def all_objects(self, bucket: str) -> dict[str, bytes]:
        import boto3

        c = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="testing",
                         aws_secret_access_key="testing", region_name="us-east-1")
        out = {}
        for page in c.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for o in page.get("Contents", []):
                out[o["Key"]] = c.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
        return out

    def close(self) -> None:
        self.server.stop()


class Relay:
    """A TCP relay to a server on this machine; `cut_after(n)` breaks a connection once an upload
    (a PUT) has sent n bytes through it (the upload is cut in the middle), `heal()` lets them through."""

    def __init__(self, upstream_port: int):
        self.upstream = upstream_port
        self.port = free_port()
        self.limit: int | None = None
        self.cuts = 0
        self._lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self._stop = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def cut_after(self, n: int) -> None:
        with self._lock:
            self.limit = n

    def heal(self) -> None:
        with self._lock:
            self.limit = None

    def _accept(self) -> None:
        while not self._stop:
            try:
                client, _ = self.sock.accept()
            except OSError:
                continue
            up = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self._pipe, args=(client, up, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(up, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, upward: bool) -> None:
        put = None  # bytes of the upload under way on this connection
        try:
            while True:
                data = src.recv(16384)
                if not data:
                    break
                if upward:
                    if b"PUT " in data[:8]:
                        put = 0
                    with self._lock:
                        if self.limit is not None and put is not None and put + len(data) > self.limit:
                            room = max(0, self.limit - put)
                            cut = True
                        else:
                            put = None if put is None else put + len(data)
                            room, cut = len(data), False
                    if cut:
                        if room:
                            dst.sendall(data[:room])
                        self.cuts += 1
                        break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def close(self) -> None:
        self._stop = True
        self.sock.close()
