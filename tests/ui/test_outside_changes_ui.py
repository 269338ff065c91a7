"""The open app follows what another program writes to the same journal (the MCP server, memoir-cli):
a memory it adds shows on the Memories page, a memory it forgets leaves it, without a restart."""

from memoir_desktop.core import Memoir


def _texts(page):
    return [c.memory["memory"] for c in page.cards]


def test_a_memory_another_program_adds_or_forgets_shows_without_a_restart(window, backend, mem, qtbot):
    backend._outside_timer.setInterval(200)
    page = window.memories
    window.tabs.setCurrentWidget(page)
    page.reload()
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    other = Memoir.open(mem.home)  # the same encrypted journal, opened through the keyring
    try:
        added = other.add("I keep bees on the roof of my flat", infer=False)["results"][0]["id"]
        qtbot.waitUntil(lambda: "I keep bees on the roof of my flat" in _texts(page), timeout=15_000)
        other.delete(added)
        qtbot.waitUntil(lambda: "I keep bees on the roof of my flat" not in _texts(page), timeout=15_000)
    finally:
        other.close()
