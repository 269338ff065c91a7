"""The tools other AI tools call. Each runs inside `access.call`: refused for a paused app or one
without the grant it needs, logged without text. Privacy is core's (app_view.py), never decided here."""

from __future__ import annotations

import logging
import sys
import threading
from datetime import date, datetime, timedelta
from typing import Any

# Context must be a name of this module at run time: the SDK finds the parameter to fill with it
# by resolving the tools' annotations here.
import anyio
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from memoir_desktop.core.apps import app_suggestions
from memoir_desktop.core.apps.app_view import switched_off_kind
from memoir_desktop.core.inputs import InvalidInput, NotFound
from memoir_desktop.core.pipeline.categories import CATEGORIES, category_of
from memoir_desktop.core.temporal.recurring import describe
from memoir_desktop.mcp.access import JournalAccess

log = logging.getLogger(__name__)

RECENT_MAX = 100  # entries recent_entries returns at most
ENTRY_CHARS = 4_000  # of each entry's text
# What an app may send. A question is a few sentences; search costs grow with its length (about 1 ms a
# character here), and a 3.5 MB query once kept a server busy for half an hour. Ids, categories and
# dates are short by nature. add_memory's text has its own limit (app_suggestions.MAX_CHARS).
QUERY_MAX = 2_000
ID_MAX = 100
CATEGORY_MAX = 40
DATE_MAX = 40
SEARCH_SECONDS = 20  # a search that takes longer is given up and said so


def _bounded(value: str | None, what: str, limit: int) -> str | None:
    if value is not None and len(value) > limit:
        raise ToolError(f"The {what} has {len(value):,} characters; memoir takes at most {limit:,}. "
                        "Send a shorter one.")
    return value


def _within(seconds: float, fn):
    """fn's result, or a ToolError once `seconds` have passed (the work goes on in a daemon thread that
    nothing waits for: the answer comes, and the server can stop)."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed to the caller
            out["error"] = exc

    worker = threading.Thread(target=run, name="memoir-mcp-search", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise ToolError(f"The search took longer than {seconds} seconds and was given up: ask with fewer words.")
    if "error" in out:
        raise out["error"]
    return out["value"]


def _shown(m: dict) -> dict:
    # The category the profile page shows (the LLM's, else the rules'), the one the user switches off.
    # Its dates: when it was recorded and last changed, and the time it is about (a span) or its
    # repetition ("every Friday"), so an app can answer "when" without guessing from the words.
    shown = {"id": m["id"], "text": m["memory"], "category": category_of(m),
             "created_at": m.get("created_at"), "updated_at": m.get("updated_at")}
    if m.get("about"):
        shown["about"] = {"from": m["about"][0], "to": m["about"][1]}
    if m.get("recurrence"):
        shown["repeats"] = describe(m["recurrence"], "en")  # "every Friday", not the stored rule
    return shown


PROFILE_URI = "memoir://profile"
PROFILE_PER_KIND = 50  # memories of each kind the profile lists, newest first


class MemoirServer(MCPServer):
    """The SDK's server, with the profile read knowing which app asks: the SDK calls a static
    resource's function with no context, and grants and the log are per app."""

    def __init__(self, access: JournalAccess):
        super().__init__("memoir")
        self.access = access

    async def read_resource(self, uri, context=None):
        if str(uri) != PROFILE_URI:
            return await super().read_resource(uri, context)
        try:
            text = await anyio.to_thread.run_sync(self._profile, context)
        except ToolError as exc:  # refused or locked: the sentence reaches the app as an MCP error
            raise ResourceError(str(exc)) from exc
        return [ReadResourceContents(content=text, mime_type="text/markdown")]

    def _profile(self, ctx) -> str:
        with self.access.call(ctx, "profile") as call:
            lines = ["# What memoir knows about the diarist", "",
                     "Their long-term memories by kind, newest first, as the diarist keeps them in memoir.", ""]
            shown = 0
            for group in self.access.memoir().reflection.profile():
                if not group["remember"]:
                    continue  # a kind the diarist switched off is not told, not even as empty
                items = sorted(self.access.visible(group["memories"]), key=lambda m: m.get("created_at") or "",
                               reverse=True)[:PROFILE_PER_KIND]
                if not items:
                    continue
                lines += [f"## {group['category'].capitalize()}", ""]
                lines += [f"- {m['memory']} ({(m.get('created_at') or '')[:10]})" for m in items]
                lines.append("")
                shown += len(items)
            if not shown:
                lines.append("Nothing yet.")
            call.items = shown
            return "\n".join(lines).rstrip() + "\n"


# Long on purpose: the MCP surface in one place, each tool a few lines registered on the server
# (the decorators need the server and the access in scope).
def build_server(access: JournalAccess) -> MCPServer:
    app = MemoirServer(access)

    @app.resource(PROFILE_URI, name="profile", mime_type="text/markdown",
                  description="What memoir knows about the diarist, by kind (people, places, work, habits…).")
    def profile() -> str:  # read through MemoirServer.read_resource, which knows the app asking
        raise ResourceError("The profile is read with the app that asks.")

    @app.tool(description="Search the diarist's long-term memories by meaning (Korean or English, "
                          "time words such as 'last spring' work). Returns the best matches first.")
    def search_memories(query: str, ctx: Context, limit: int = 10) -> list[dict]:
        with access.call(ctx, "search_memories") as call:
            _bounded(query, "query", QUERY_MAX)
            if not query.strip() or not 1 <= limit <= 100:
                raise ToolError("Give a query and a limit between 1 and 100.")
            # Asked for more than wanted: what may not leave is dropped after the search, and the
            # app should still get `limit` answers when there are that many it may see.
            mem = access.memoir()
            hits = _within(SEARCH_SECONDS, lambda: mem.search(query, limit=min(2 * limit, 200)))["results"]
            return call.sent([_shown(m) for m in access.visible(hits)][:limit])

    @app.tool(description="List the diarist's memories, newest first, optionally of one category: "
                          f"{', '.join(CATEGORIES)}.")
    def list_memories(ctx: Context, category: str | None = None, limit: int = 50) -> list[dict]:
        with access.call(ctx, "list_memories") as call:
            _bounded(category, "category", CATEGORY_MAX)
            if not 1 <= limit <= 500:
                raise ToolError("Give a limit between 1 and 500.")
            items = access.memoir().get_all()["results"]
            if category:
                items = [m for m in items if _shown(m)["category"] == category]
            items.sort(key=lambda m: m.get("created_at") or "", reverse=True)
            return call.sent([_shown(m) for m in access.visible(items)[:limit]])

    @app.tool(structured_output=True, description="One memory by its id, with its history: each change, who made it and when.")
    def get_memory(id: str, ctx: Context) -> dict[str, Any]:
        with access.call(ctx, "get_memory") as call:
            _bounded(id, "id", ID_MAX)
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
        with access.call(ctx, "add_memory") as call:
            mem = access.memoir()
            try:
                text = app_suggestions.checked_text(text)
            except InvalidInput as exc:
                raise ToolError(str(exc)) from exc
            name = call.app["name"]
            if switched_off_kind(mem.home, text):
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

    @app.tool(structured_output=True, description=(
        "What the diarist wrote, and what memoir remembered, on this date one month ago and one, two, "
        "... years ago. `date` is YYYY-MM-DD (today when left out). Only for an app allowed to read entries."))
    def on_this_day(ctx: Context, date: str | None = None) -> dict[str, Any]:
        with access.call(ctx, "on_this_day", needs="read_entries") as call:
            day = _day(_bounded(date, "date", DATE_MAX))
            groups, sent = [], 0
            for g in access.memoir().reflection.on_this_day(day):
                entries = access.visible_entries(g["entries"])
                memories = [_shown(m) for m in access.visible(g["memories"])]
                if entries or memories:
                    groups.append({"date": g["date"], "months_ago": g["months_ago"], "years_ago": g["years_ago"],
                                   "entries": [{"id": e["id"], "written": e["created_at"], "text": e["snippet"]}
                                               for e in entries],
                                   "memories": memories})
                    sent += len(entries) + len(memories)
            call.items = sent
            return {"date": day.isoformat(), "looking_back": groups}

    @app.tool(description=(
        "The diarist's journal entries of the last `days` days (1 to 366), newest first. Only for an app "
        "allowed to read entries."))
    def recent_entries(ctx: Context, days: int = 7) -> list[dict]:
        with access.call(ctx, "recent_entries", needs="read_entries") as call:
            if not 1 <= days <= 366:
                raise ToolError("Give a number of days between 1 and 366.")
            since = (datetime.now() - timedelta(days=days)).isoformat()
            # The diarist's own entries: not the companion's replies, not memoir's letters.
            mine = [e for e in access.memoir().journal.entries() if e["role"] == "user" and e["kind"] == "entry"
                    and e["created_at"] >= since]
            shown = [{"id": e["id"], "written": e["created_at"], "text": _cut(e["content"]), "tags": e["tags"]}
                     for e in reversed(access.visible_entries(mine))][:RECENT_MAX]
            return call.sent(shown)

    return app


def _day(text: str | None):
    if not text:
        return date.today()
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ToolError(f"Give the date as YYYY-MM-DD, for example {date.today().isoformat()}.") from None


def _cut(text: str) -> str:
    # A long entry is cut: an app asking "what happened this week" needs the gist, not a whole essay.
    return text if len(text) <= ENTRY_CHARS else text[:ENTRY_CHARS - 1].rstrip() + "…"


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
