"""The read path: a Query (text, tokens, vector, time; computed once), the sources (facts,
episodes, graph), one fusion, and the companion's context (hot path + routed cold path)."""

from memoir_desktop.core.search.context import Context, assemble
from memoir_desktop.core.search.query import Query
from memoir_desktop.core.search.retriever import ColdPath, Retriever
from memoir_desktop.core.search.router import Route, route

__all__ = ["ColdPath", "Context", "Query", "Retriever", "Route", "assemble", "route"]
