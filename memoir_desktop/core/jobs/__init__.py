"""The durable job queue, the one runner that owns job state, and the journal's upkeep."""
