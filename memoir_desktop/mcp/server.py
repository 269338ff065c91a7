"""Tools over the journal's memories. Privacy is core's (PrivacyLens); nothing here decides what is private."""

from __future__ import annotations

import logging
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

log = logging.getLogger(__name__)


def _shown(m: dict) -> dict:
    from memoir_desktop.core.reflection.categories import category_of

    # The category the profile page shows (the LLM's, else the rules'), the one the user switches off.
    return {"id": m["id"], "text": m["memory"], "category": category_of(m),
            "created_at": m.get("created_at"), "updated_at": m.get("updated_at")}


class JournalAccess:
    """Opens the journal once; a journal that will not open answers every call with one sentence."""

    def __init__(self, home=None):
        self.home, self.mem, self.problem = home, None, None

    def open(self):
        from memoir_desktop.core import Memoir
        from memoir_desktop.core.crypto import KeyError_

        try:
            self.mem = Memoir.open(self.home)
        except KeyError_:
            self.problem = ("The journal is locked: open memoir and unlock it, or start this server "
                            "with the journal's passphrase.")
        return self

    def memoir(self):
        if self.mem is None:
            raise ToolError(self.problem or "The journal could not be opened.")
        return self.mem

    def visible(self, memories: list[dict]) -> list[dict]:
        """Core decides what may leave: not private-only memories, not switched-off categories."""
        from memoir_desktop.core.app_view import visible_memories

        mem = self.memoir()
        return visible_memories(mem.engine, mem.home, memories)


def build_server(access: JournalAccess) -> MCPServer:
    app = MCPServer("memoir")

    @app.tool(description="Search the diarist's long-term memories by meaning (Korean or English, "
                          "time words such as 'last spring' work). Returns the best matches first.")
    def search_memories(query: str, limit: int = 10) -> list[dict]:
        if not query.strip() or not 1 <= limit <= 100:
            raise ToolError("Give a query and a limit between 1 and 100.")
        hits = access.memoir().search(query, limit=limit)["results"]
        return [_shown(m) for m in access.visible(hits)]

    @app.tool(description="List the diarist's memories, newest first, optionally of one category.")
    def list_memories(category: str | None = None, limit: int = 50) -> list[dict]:
        if not 1 <= limit <= 500:
            raise ToolError("Give a limit between 1 and 500.")
        items = access.memoir().get_all()["results"]
        if category:
            items = [m for m in items if _shown(m)["category"] == category]
        items.sort(key=lambda m: m.get("created_at") or "", reverse=True)
        return [_shown(m) for m in access.visible(items)[:limit]]

    @app.tool(structured_output=True, description="One memory by its id, with its history: each change, who made it and when.")
    def get_memory(id: str) -> dict[str, Any]:
        from memoir_desktop.core.inputs import NotFound

        mem = access.memoir()
        try:
            found = access.visible([mem.get(id)])
        except NotFound:
            found = []
        if not found:
            raise ToolError(f"There is no memory with the id {id}.")
        history = [{"event": h["event"], "by": h["actor"], "when": h["created_at"]} for h in mem.history(id)]
        return {**_shown(found[0]), "history": history}

    return app


def serve_stdio(home=None) -> int:
    # stdout carries the protocol only; anything else goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=True)
    access = JournalAccess(home).open()
    try:
        build_server(access).run("stdio")
    finally:
        if access.mem is not None:
            access.mem.close()
    return 0
