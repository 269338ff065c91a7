"""The Memory tab: searchable memory cards, their dialogs, and pending proposals."""
