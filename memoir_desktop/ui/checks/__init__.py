"""The app checking itself: the headless smoke run, screenshots of every view with demo content, and
Help → Diagnostics (how fast each stage of the memory engine is)."""
