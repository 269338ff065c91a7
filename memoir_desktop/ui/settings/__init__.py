"""Settings: the dialog and its groups (AI companion, search models and their downloads, privacy,
reminders), and applying what was saved."""
