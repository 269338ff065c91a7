"""Choosing the models search and the companion read with: what Settings → Search offers, downloads, and a
new search model's index built beside the one in use before the swap (the `SearchModels` part)."""
