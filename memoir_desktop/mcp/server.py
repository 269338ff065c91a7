"""The tools other AI tools call. Each runs inside `access.call`: refused for a paused app or one
without the grant it needs, logged without text. Privacy is core's (app_view.py), never decided here."""

from __future__ import annotations

import logging
import sys
from typing import Any

# Context must be a name of this module at run time: the SDK finds the parameter to fill with it
# by resolving the tools' annotations here.
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from memoir_desktop.mcp.access import JournalAccess

log = logging.getLogger(__name__)


def _shown(m: dict) -> dict:
    from memoir_desktop.core.reflection.categories import category_of

    # The category the profile page shows (the LLM's, else the rules'), the one the user switches off.
    return {"id": m["id"], "text": m["memory"], "category": category_of(m),
            "created_at": m.get("created_at"), "updated_at": m.get("updated_at")}


def build_server(access: JournalAccess) -> MCPServer:
    app = MCPServer("memoir")

    @app.tool(description="Search the diarist's long-term memories by meaning (Korean or English, "
                          "time words such as 'last spring' work). Returns the best matches first.")
    def search_memories(query: str, ctx: Context, limit: int = 10) -> list[dict]:
        with access.call(ctx, "search_memories") as call:
            if not query.strip() or not 1 <= limit <= 100:
                raise ToolError("Give a query and a limit between 1 and 100.")
            hits = access.memoir().search(query, limit=limit)["results"]
            return call.sent([_shown(m) for m in access.visible(hits)])

    @app.tool(description="List the diarist's memories, newest first, optionally of one category.")
    def list_memories(ctx: Context, category: str | None = None, limit: int = 50) -> list[dict]:
        with access.call(ctx, "list_memories") as call:
            if not 1 <= limit <= 500:
                raise ToolError("Give a limit between 1 and 500.")
            items = access.memoir().get_all()["results"]
            if category:
                items = [m for m in items if _shown(m)["category"] == category]
            items.sort(key=lambda m: m.get("created_at") or "", reverse=True)
            return call.sent([_shown(m) for m in access.visible(items)[:limit]])

    @app.tool(structured_output=True, description="One memory by its id, with its history: each change, who made it and when.")
    def get_memory(id: str, ctx: Context) -> dict[str, Any]:
        from memoir_desktop.core.inputs import NotFound

        with access.call(ctx, "get_memory") as call:
            mem = access.memoir()
            try:
                found = access.visible([mem.get(id)])
            except NotFound:
                found = []
            if not found:  # also a private-only, forgotten or switched-off one: its existence is not told
                raise ToolError(f"There is no memory with the id {id}.")
            history = [{"event": h["event"], "by": h["actor"], "when": h["created_at"]} for h in mem.history(id)]
            return call.sent({**_shown(found[0]), "history": history})

    @app.tool(structured_output=True, description=(
        "Tell memoir something you learned about the diarist, in one or two sentences. Unless the "
        "diarist lets this app write directly, it becomes a suggestion they accept or reject in memoir; "
        "the answer says which happened."))
    def add_memory(text: str, ctx: Context) -> dict[str, Any]:
        from memoir_desktop.core import app_suggestions
        from memoir_desktop.core.app_view import switched_off
        from memoir_desktop.core.inputs import InvalidInput
        from memoir_desktop.core.reflection.categories import categorize

        with access.call(ctx, "add_memory") as call:
            mem = access.memoir()
            try:
                text = app_suggestions.checked_text(text)
            except InvalidInput as exc:
                raise ToolError(str(exc)) from exc
            name = call.app["name"]
            if categorize(text) in switched_off(mem.home):
                return {"outcome": "not_kept", "message": "Not kept: the diarist asked memoir not to "
                                                          "remember this kind of thing."}
            if call.app["write_directly"]:
                added = mem.add(text, infer=False, metadata={"added_by": name})["results"][0]
                return {"outcome": "added", "id": added["id"],
                        "message": "Added to the diarist's memories."}
            held = app_suggestions.suggest(mem.engine, name, text)
            return {"outcome": "suggested", "suggestion_id": held["id"],
                    "message": "Sent to the diarist as a suggestion: it becomes a memory only if they "
                               "accept it in memoir."}

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
