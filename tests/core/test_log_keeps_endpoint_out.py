"""The log files of the CLI and of the app, set up as they are at start, never record the LLM
endpoint's URL at INFO (the HTTP clients' own request lines), while their warnings still get in."""

import logging

import pytest

from memoir_desktop.core import Memoir, logs


@pytest.fixture
def fresh_logging(tmp_path, monkeypatch):
    """The real setup, run afresh into a temporary log folder; the test process's logging restored after."""
    monkeypatch.setenv("MEMOIR_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setattr(logs, "_configured", False)
    root = logging.getLogger()
    saved = (list(root.handlers), root.level, {n: logging.getLogger(n).level for n in logs.HTTP_LOGGERS})
    yield tmp_path / "logs"
    for handler in root.handlers[:]:
        if handler not in saved[0]:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(saved[1])
    for name, level in saved[2].items():
        logging.getLogger(name).setLevel(level)


def _talk_to_the_endpoint(tmp_path, fake_llm) -> None:
    import httpx

    fake_llm.on_text(lambda req: "a short reply")
    with Memoir.open(tmp_path / "home", llm_base_url=fake_llm.url, llm_model="fake-model", encrypt=False) as m:
        m.companion.chat("A long walk by the river today.")  # the probe and the answer: the openai client's requests
    httpx.get(fake_llm.url + "/models")  # and plain httpx, as the model downloads use it
    logging.getLogger("httpx").warning("a warning from the HTTP client still reaches the log")


def _read(path) -> str:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return path.read_text("utf-8")


def _host(url: str) -> str:
    return url.split("//", 1)[1].split("/", 1)[0]  # 127.0.0.1:PORT


def test_the_cli_log_never_records_the_endpoint_url(tmp_path, fake_llm, fresh_logging):
    path = logs.setup_logging()  # as cli.main does
    _talk_to_the_endpoint(tmp_path, fake_llm)
    text = _read(fresh_logging / "memoir.log")
    assert path == str(fresh_logging / "memoir.log")
    assert fake_llm.requests, "the endpoint was reached"
    assert _host(fake_llm.url) not in text, text
    assert "a warning from the HTTP client" in text


def test_the_app_log_never_records_the_endpoint_url(tmp_path, fake_llm, fresh_logging):
    from memoir_desktop.ui.main import _setup_logging  # no Qt is imported by it

    _setup_logging()  # as the app's run() does
    _talk_to_the_endpoint(tmp_path, fake_llm)
    text = _read(fresh_logging / "memoir-desktop.log")
    assert _host(fake_llm.url) not in text, text
    assert "a warning from the HTTP client" in text


def test_a_library_that_lowers_its_own_level_later_still_stays_out(tmp_path, fake_llm, fresh_logging):
    logs.setup_logging()
    logging.getLogger("openai").setLevel(logging.DEBUG)  # what OPENAI_LOG=debug does at import
    logging.getLogger("httpx").setLevel(logging.INFO)
    _talk_to_the_endpoint(tmp_path, fake_llm)
    assert _host(fake_llm.url) not in _read(fresh_logging / "memoir.log")
