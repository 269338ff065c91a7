"""`SingleInstance`: one app per data dir. A second launch asks the first to raise its window.

Keyed on the resolved data dir, so two journals (two `--home` dirs) can still be open at once;
two processes on one dir would fight over the embedded vector index.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_MS = 500
MESSAGE = b"raise\n"  # informative only: any connection means "raise"


def server_name(home: Path) -> str:
    digest = hashlib.sha256(str(Path(home).resolve()).encode("utf-8")).hexdigest()[:16]
    return f"memoir-desktop-{digest}"


class SingleInstance(QObject):
    activated = Signal()  # another launch wants this instance's window raised

    def __init__(self, home: Path, parent: QObject | None = None):
        super().__init__(parent)
        self.name = server_name(home)
        self._server: QLocalServer | None = None

    def claim(self) -> bool:
        """True when this is the first instance (and now listens); False when another answered."""
        socket = QLocalSocket()
        socket.connectToServer(self.name)
        if socket.waitForConnected(CONNECT_TIMEOUT_MS):
            socket.write(MESSAGE)
            socket.waitForBytesWritten(CONNECT_TIMEOUT_MS)
            socket.disconnectFromServer()
            return False
        # Nobody answered: a socket file left by a crash would make listen() fail, so clear it.
        QLocalServer.removeServer(self.name)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.UserAccessOption)
        if not self._server.listen(self.name):
            log.warning("single-instance server could not listen: %s", self._server.errorString())
            return True
        self._server.newConnection.connect(self._on_connection)
        return True

    def _on_connection(self) -> None:
        # Any connection is a second launch: it has nothing to say but "show yourself".
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            socket.disconnected.connect(socket.deleteLater)
            socket.disconnectFromServer()
        self.activated.emit()

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
