"""Reflection: the About-you page (the profile of what memoir remembers) and Stats (charts and the
writing calendar)."""
