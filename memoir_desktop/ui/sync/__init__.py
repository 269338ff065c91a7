"""Settings → Sync, the automatic rounds, the sync state in the status bar and the notice of an entry
edited on two computers: the app side of core/sync."""
