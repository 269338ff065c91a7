"""Entries: write, edit (with history), trash, restore, purge, back-date, and what reads them."""
