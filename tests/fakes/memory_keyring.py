"""An in-memory keyring backend for tests (never a file, never the real OS keyring)."""

from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    priority = 1
    _store: dict = {}

    def get_password(self, service, username):
        return self._store.get((service, username))

    def set_password(self, service, username, password):
        self._store[(service, username)] = password

    def delete_password(self, service, username):
        self._store.pop((service, username), None)
