"""Keys: the journal's encryption (crypto.py), the OS keyring (secrets.py), private files on disk."""
