"""The durable job queue, the one runner that owns job state, and the `Jobs` part (what waits and why)."""
