"""The Qt desktop app. Widgets subscribe to core results; none of them holds domain logic.

Threading rule (the one every module here follows): widgets live on the UI thread and call
the core only through `AsyncMemoir` (reads pool) or `BackgroundWriter` (the one writer).
Workers never touch a widget: their results come back as queued signals.
"""
