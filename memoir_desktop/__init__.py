"""memoir desktop: a journal that remembers you."""

import os

# Set before numpy loads: OpenBLAS keeps its worker threads spinning for a while after each
# product, and on 2 cores they starved the two OpenMP threads of the next query embedding
# (search p50/p95 at 2k memories 28/42 ms with BLAS threads, 24/28 ms without). The
# products memoir does (a query against at most some 10^5 vectors) are fast on one thread.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
