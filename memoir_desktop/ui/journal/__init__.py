"""The Journal tab: the day's conversation, past days, the composer."""
