"""Starting and locking: the display check before Qt, opening the journal off the UI thread with its
progress window, one app per data folder, the app lock, and the lifecycle (start-up, language switch,
restore, shut-down)."""
