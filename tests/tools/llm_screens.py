"""Screens of the app with a real local model server (llama.cpp), as a diarist sees them:

  llm-test-connection.png   Settings → AI companion → Test connection, answered by the server
  llm-jobs-slow.png         the journal while a slow server works: the entries' memory notes say why they wait
  llm-no-memories-ko.png    a Korean question to the companion of a journal with no memories yet

    MEMOIR_TEST_MODELS=models QT_QPA_PLATFORM=offscreen python -m tests.tools.llm_screens qwen OUT_DIR

"Slow" is made honest, not faked: the time limit is set below what the model needs for an entry,
so the jobs wait with the reason the app gives a slow server. Needs llama-cpp-python[server].
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from memoir_desktop.core import Memoir, config, lexical
from memoir_desktop.ui.async_memoir import AsyncMemoir
from memoir_desktop.ui.main_window import MainWindow
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.shared.theme import apply_theme
from tests.real_llm.llama_server import MODELS, start_working

SLOW_LIMIT_S = 2.0  # under what the 0.5B model needs for an entry's facts on two cores
ENTRIES = ["오늘은 비가 와서 집에서 책을 읽었다. 동생 지민이가 전화해서 다음 달에 결혼한다고 했다.",
           "점심에 회사 동료 민수랑 새로 생긴 국밥집에 갔다. 무릎이 아파서 계단이 힘들었다."]
QUESTION = "내가 키우는 고양이 이름이 뭐였지?"


def _wait(app: QApplication, until, timeout_s: float) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        app.processEvents()
        if until():
            return True
        time.sleep(0.05)
    return False


def _window(app: QApplication, mem: Memoir, scratch: Path) -> tuple[AsyncMemoir, MainWindow]:
    backend = AsyncMemoir(mem)
    window = MainWindow(backend, ui_state=QSettings(str(scratch / "ui.ini"), QSettings.IniFormat))
    window.resize(1280, 820)
    window.show()
    window.start()
    _wait(app, lambda: backend.idle, 30)
    return backend, window


def _journal(home: Path, **llm) -> Memoir:
    """A plain journal whose saved settings name the server, as Settings → AI companion leaves them."""
    settings = config.load_settings(home, apply_env=False)
    for name, value in llm.items():
        setattr(settings, name, value)
    home.mkdir(parents=True, exist_ok=True)
    config.save_settings(home, settings)
    return Memoir.open(home, encrypt=False)


def _waiting_says_why(mem: Memoir) -> bool:
    jobs = [j for j in mem.jobs.all() if j["state"] in ("pending", "failed")]
    return bool(jobs) and any((j.get("reason") or {}).get("kind") not in (None, "queued", "answer") for j in jobs)


def run(label: str, out: Path) -> int:
    model = Path(os.environ.get("MEMOIR_TEST_MODELS", "models")) / MODELS[label]
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    i18n.install("ko")
    apply_theme(app, "light")
    lexical.warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        server = start_working(model, log=scratch / "server.log")
        try:
            # 1. Test connection, with the time limit the app chooses for this computer's server.
            mem = _journal(scratch / "a", llm_provider="custom", llm_base_url=server.url, llm_model=model.stem)
            backend, window = _window(app, mem, scratch)
            dialog = window.open_settings()
            dialog.show_page(dialog.test_button)
            dialog.resize(820, 900)
            dialog.test_connection()
            _wait(app, lambda: dialog.test_button.isEnabled(), 300)
            _wait(app, lambda: False, 1)  # the answer's lines laid out
            dialog.grab().save(str(out / "llm-test-connection.png"))
            print("test connection:", dialog.test_result.text().replace("\n", " / "))
            dialog.reject()

            # 2. The companion, asked in Korean, with no memories at all.
            window.journal.send(QUESTION)
            _wait(app, lambda: len(window.journal.chat.bubbles) >= 2 and backend.idle, 300)
            _wait(app, lambda: False, 1)
            window.grab().save(str(out / "llm-no-memories-ko.png"))
            print("companion:", window.journal.chat.bubbles[-1].body.text())
            window.close()
            backend.shutdown(30_000)
            mem.close()

            # 3. A server slower than the time limit: the entries wait, and say why.
            mem = _journal(scratch / "b", llm_provider="custom", llm_base_url=server.url, llm_model=model.stem,
                           llm_timeout_s=SLOW_LIMIT_S, llm_max_retries=0)
            backend, window = _window(app, mem, scratch)
            for text in ENTRIES:
                mem.journal.write(text)
            backend.writer.poke()
            _wait(app, lambda: _waiting_says_why(mem), 300)
            window.journal.show_today()
            _wait(app, lambda: False, 2)
            window.grab().save(str(out / "llm-jobs-slow.png"))
            for job in mem.jobs.all():
                print("job", job["id"], job["kind"], job["state"], (job.get("reason") or {}).get("text", ""))
            window.close()
            backend.shutdown(30_000)
            mem.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    raise SystemExit(run(args.model, args.out))
