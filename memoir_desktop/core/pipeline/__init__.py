"""The write path: extraction -> update (Mem0 Algorithm 1) -> summary -> graph."""
