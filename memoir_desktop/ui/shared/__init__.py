"""What every screen shares: the theme and its colours, translations, icons and other resources, date
formats, symbols with fallbacks, windows sized to their sentences, refresh-when-shown, exceptions as
words, a key shown once, and Qt version workarounds."""
