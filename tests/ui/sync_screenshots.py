"""Render resources/screenshots/sync-*.png: Settings → Sync with a folder and the last sync's time, the
status bar while a round runs, and the notice of an entry edited on two computers.

    python -m tests.ui.sync_screenshots resources/screenshots

Dev tool, not a test. Two journals of one diarist (a laptop with the demo journal, organized by the
scripted LLM of demo_screenshots.py, and a desk that joined it) sync through a folder, all in a scratch
folder deleted afterwards: no real journal is given a sync place.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

from tests.ui.demo_screenshots import FakeLLM, entities, extract, operations, relations, text

PASS = "a long journal passphrase"
WINDOW_SIZE = (1280, 820)
STATUS_STRIP = 150  # px of the window's bottom: the composer's edge and the status bar


def _pump(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def _wait(app, done, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not done() and time.monotonic() < end:
        _pump(app, 0.05)
    if not done():
        raise RuntimeError("the screen did not settle")
    _pump(app, 0.5)


def _two_computers(root: Path, llm_url: str):
    """The laptop's demo journal in the place, the desk joined, today's entry edited on both."""
    from memoir_desktop.core import Memoir, lexical
    from memoir_desktop.ui.checks.demo import seed_demo

    place = "~/Dropbox/memoir"  # HOME is the scratch folder (main): the address a diarist would see
    laptop = Memoir.open(root / "laptop", passphrase=PASS, llm_base_url=llm_url, llm_model="demo-model")
    lexical.warm_up()
    seed_demo(laptop)
    while laptop.jobs.all("pending"):
        laptop.jobs.process(limit=5)
    laptop.sync.run(place)
    desk = Memoir.join(place, PASS, home=root / "desk", llm_base_url=None)
    coffee = "아침 커피를 **디카페인**으로 바꿨다"
    plain = coffee.replace("**", "")

    def todays(mem) -> int:
        return next(e["id"] for e in mem.journal.entries(day=date.today()) if e["content"].startswith(coffee))

    laptop.journal.edit(todays(laptop), plain + ". 확실히 밤에 잠이 잘 온다.\n\n모카는 오늘도 새벽 5시에 깨웠다.")
    desk.journal.edit(todays(desk), plain + ". 오후에 한 잔 더 마셨는데도 잠이 잘 왔다.")
    desk.sync.run()
    desk.close()
    return laptop


def main(out_dir: str) -> int:
    from PySide6.QtCore import QRect, QSettings
    from PySide6.QtWidgets import QApplication

    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.main_window import MainWindow
    from memoir_desktop.ui.shared import i18n
    from memoir_desktop.ui.shared.theme import apply_theme
    from memoir_desktop.ui.sync.conflict_notice import ConflictNoticeCard

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    i18n.install("ko")
    apply_theme(app, "light")
    llm = FakeLLM()
    for name, rule in (("save_facts", extract), ("memory_operations", operations),
                       ("extract_entities", entities), ("extract_relations", relations)):
        llm.on(name, rule)
    llm.on_text(text)
    with tempfile.TemporaryDirectory(prefix="memoir-sync-shots-") as scratch:
        os.environ["HOME"] = scratch  # "~/Dropbox/memoir" is in the scratch folder
        laptop = _two_computers(Path(scratch), llm.url)
        backend = AsyncMemoir(laptop)
        window = MainWindow(backend, ui_state=QSettings(str(Path(scratch) / "ui.ini"), QSettings.IniFormat))
        window.resize(*WINDOW_SIZE)
        window.show()
        window.start()  # the round at start meets the desk's edit
        _wait(app, lambda: any(isinstance(c, ConflictNoticeCard) for c in window.journal.cards)
              and backend.idle and not window.sync.running)
        window.journal.chat.show_top()
        _pump(app, 0.5)
        window.grab().save(str(out / "sync-notice.png"))

        dialog = window.open_sync_settings()
        _pump(app, 1.0)
        dialog.grab().save(str(out / "sync-settings.png"))
        dialog.reject()

        gate = threading.Event()
        real_sync = laptop.sync.run

        def held(url=None, progress=None):  # a round caught while it receives what the desk sent
            if progress is not None:
                progress("download", 1, 3)
            gate.wait(30)
            return real_sync(url, progress=progress)

        laptop.sync.run = held
        window.sync.sync_now()
        _pump(app, 1.0)
        height = window.height()
        strip = QRect(0, height - STATUS_STRIP, window.width(), STATUS_STRIP)
        window.grab(strip).save(str(out / "sync-status.png"))
        gate.set()
        _wait(app, lambda: not window.sync.running and backend.idle)

        window.close()
        backend.shutdown(10_000)
        laptop.close()
    llm.close()
    for name in ("sync-notice.png", "sync-settings.png", "sync-status.png"):
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "resources/screenshots"))
