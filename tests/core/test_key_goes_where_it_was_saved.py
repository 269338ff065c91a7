"""An API key saved for one provider is sent to that provider only: switching to a server on this
computer (or another provider) did not stop the saved OpenAI key from going with every request."""

import keyring

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.keys import secrets

SECRET = "sk-saved-for-openai-123"


def _auth_headers(fake_llm) -> set:
    return {r.get("_authorization") for r in fake_llm.requests}


def test_a_key_saved_for_openai_never_reaches_a_local_server(tmp_path, fake_llm):
    home = tmp_path / "home"
    keyring.set_password(secrets.SERVICE, secrets.ACCOUNT, SECRET)
    st = config.Settings(llm_base_url=fake_llm.url, llm_model="fake-model", llm_provider="ollama",
                         llm_key_endpoint=secrets.endpoint_of(""))  # saved while OpenAI was chosen
    home.mkdir()
    config.save_settings(home, st)
    mem = Memoir.open(home)
    try:
        mem.connection.test(fake_llm.url, "fake-model")
        mem.companion.chat("오늘은 비가 왔다")
    finally:
        mem.close()
    assert fake_llm.requests and all(SECRET not in (h or "") for h in _auth_headers(fake_llm))


def test_the_key_goes_to_the_endpoint_it_was_saved_for(tmp_path, fake_llm):
    home = tmp_path / "home"
    keyring.set_password(secrets.SERVICE, secrets.ACCOUNT, SECRET)
    home.mkdir()
    config.save_settings(home, config.Settings(llm_base_url=fake_llm.url, llm_model="fake-model",
                                               llm_key_endpoint=secrets.endpoint_of(fake_llm.url)))
    mem = Memoir.open(home)
    try:
        mem.companion.chat("오늘은 비가 왔다")
    finally:
        mem.close()
    assert f"Bearer {SECRET}" in _auth_headers(fake_llm)


def test_a_key_saved_before_endpoints_were_kept_still_goes_where_the_settings_point(tmp_path, fake_llm):
    home = tmp_path / "home"
    keyring.set_password(secrets.SERVICE, secrets.ACCOUNT, SECRET)
    home.mkdir()
    config.save_settings(home, config.Settings(llm_base_url=fake_llm.url, llm_model="fake-model"))
    mem = Memoir.open(home)
    try:
        mem.companion.chat("오늘은 비가 왔다")
    finally:
        mem.close()
    assert f"Bearer {SECRET}" in _auth_headers(fake_llm)


def test_endpoints_compare_by_scheme_host_and_port():
    assert secrets.endpoint_of("") == secrets.endpoint_of("https://API.openai.com/v1/") == "https://api.openai.com"
    assert secrets.endpoint_of("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434"
    assert secrets.endpoint_of("http://127.0.0.1:11434/v1") != secrets.endpoint_of("http://127.0.0.1:1234/v1")
