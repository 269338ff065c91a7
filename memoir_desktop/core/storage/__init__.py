"""Storage: the tables (models.py), memories (store.py), vectors (plain Qdrant, sealed in SQLCipher, the in-memory mirror), the graph."""
