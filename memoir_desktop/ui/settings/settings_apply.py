"""Settings as the app applies them, each a few steps on the background runners: Save (the file, the
key in the keyring, the running journal reconfigured), a newly chosen search model's index built a
chunk at a time, flags the app remembers, the saved key's presence, the passphrase removed.

Threading rule: every step runs on the writer or the reads pool (AsyncMemoir.change / read); the
callbacks and signals arrive on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable

from memoir_desktop.core import config
from memoir_desktop.core.changes import Changes
from memoir_desktop.core.keys import secrets
from memoir_desktop.ui.tasks import call_if_alive


def apply_settings(backend, settings: config.Settings, api_key: str | None, remove_key: bool,
                   on_done: Callable[[str | None], None], on_error: Callable | None = None) -> None:
    """Save settings (file) and key (keyring), then reconfigure the running Memoir.

    `on_done` gets the key-storage message to show when the key could only be kept for this session,
    else None. Runs on the writer so it never swaps the LLM mid-job.
    """
    home = backend.home

    def work(mem) -> tuple[str | None, config.Settings, bool]:
        # Env overrides (MEMOIR_*) are for headless use: never persist them.
        on_disk = config.load_settings(home, apply_env=False)
        for key, value in settings.to_dict().items():
            if key != "version":
                setattr(on_disk, key, value)
        message = None
        if remove_key:
            secrets.set_api_key(None)
            on_disk.llm_key_endpoint = ""
        elif api_key:
            stored = secrets.set_api_key(api_key)
            on_disk.llm_key_endpoint = secrets.endpoint_of(on_disk.llm_base_url)
            if stored.where == "session":
                message = stored.message
        config.save_settings(home, on_disk)
        running = config.load_settings(home)
        return message, running, mem.reconfigure(running, rebuild_now=False)

    def done(outcome) -> None:
        message, running, rebuild = outcome
        if rebuild:  # minutes to hours: after Save, a chunk at a time, the old model searching meanwhile
            build_next_index(backend)
        backend.settings_changed.emit(running)
        backend.changed.emit(Changes(settings=True))
        backend.writer.poke()
        backend.refresh_status()
        backend.check_llm()
        backend.read(lambda m: m.models.warm())  # a reranker just chosen loads before it is needed
        call_if_alive(on_done, message)

    backend.change(work, done, on_error)


def build_next_index(backend) -> None:
    """One chunk at a time on the writer, after any user write waiting: search keeps the model in use
    until the new index is complete (core/index_switch.py)."""
    if backend.building_index:
        return
    backend.building_index = True

    def done(step: dict) -> None:
        backend.building_index = False
        if step.get("stopped"):
            return  # Stop was clicked meanwhile
        backend.index_progress.emit(step["done"], step["total"])
        if step["finished"]:
            backend.refresh_status()
            backend.settings_changed.emit(backend.settings)
        elif backend.mem.models.index_switch is not None:
            build_next_index(backend)

    def failed(exc: BaseException) -> None:
        backend.building_index = False
        backend.switch_failed.emit(str(exc))
        backend.settings_changed.emit(backend.settings)

    backend.writer.submit_background(backend.mem.models.step_switch, done, failed)


def cancel_embedder_switch(backend, on_done: Callable | None = None) -> None:
    """Stop building the new model's index; the model in use stays."""
    def done(_r=None) -> None:
        backend.settings_changed.emit(backend.settings)
        call_if_alive(on_done)

    backend.change(lambda m: m.models.cancel_switch(), done)


def remember(backend, flag: str) -> None:
    """A one-time flag the app keeps in the settings file ("what is sent" was shown, encryption declined)."""
    home = backend.home

    def work(mem) -> None:
        config.persist(home, mem.settings, **{flag: True})

    backend.change(work)


def remove_passphrase(backend, current: str, on_done: Callable | None = None, on_error: Callable | None = None) -> None:
    """The app lock goes with the passphrase (settings change: the lock and the menu follow)."""
    def done(_result=None) -> None:
        backend.settings_changed.emit(backend.settings)
        backend.changed.emit(Changes(settings=True))
        call_if_alive(on_done, None)

    backend.change(lambda m: m.keys.remove_passphrase(current=current), done, on_error)


def api_key_present(backend, on_done: Callable[[bool], None]) -> None:
    # The keyring can block (an unlock prompt), so even this read stays off the UI thread.
    backend.read(lambda _m: bool(secrets.get_api_key()), on_done)
