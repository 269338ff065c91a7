"""Readers that turn other journaling apps' exports into plain entries (pure: no database, no Qt)."""
