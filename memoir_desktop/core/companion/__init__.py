"""The companion: the answer to a journal line and the turn around it."""
