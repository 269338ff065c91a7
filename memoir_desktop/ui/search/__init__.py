"""The Search tab: one field over entries and memories, results as cards."""
