"""Presets, local-server discovery and model lists (GET /v1/models) against fake servers."""

from memoir_desktop.core.llm import servers
from tests.fakes.fake_llm import FakeLLM


def test_presets_cover_the_servers_people_run():
    urls = {p.key: p.base_url for p in servers.PRESETS}
    assert urls["ollama"].endswith(":11434/v1") and urls["lmstudio"].endswith(":1234/v1")
    assert urls["llamacpp"].endswith(":8080/v1") and urls["jan"].endswith(":1337/v1")
    assert urls["vllm"].endswith(":8000/v1") and urls["openai"] == ""


def test_a_saved_url_finds_its_preset_and_local_means_this_computer():
    assert servers.preset_for("http://127.0.0.1:11434/v1").key == "ollama"
    assert servers.preset_for("http://localhost:1234/v1/").key == "lmstudio"
    assert servers.preset_for("https://my.server.example/v1").key == "custom"
    assert servers.preset_for("").key == "openai"
    assert servers.is_local("http://localhost:8080/v1") and not servers.is_local("https://api.openai.com/v1")
    assert not servers.is_local("")


def test_discovery_finds_running_servers_and_skips_closed_ports():
    a, b = FakeLLM(), FakeLLM()
    try:
        found = servers.discover_local([(servers.BY_KEY["ollama"], a.url), (servers.BY_KEY["jan"], b.url),
                                        (servers.BY_KEY["vllm"], "http://127.0.0.1:9/v1")], timeout=0.5)
        assert sorted(f.preset.key for f in found) == ["jan", "ollama"]
        assert all(f.models == ("fake-model",) for f in found)
    finally:
        a.close()
        b.close()


def test_list_models_reads_the_servers_list():
    s = FakeLLM()
    try:
        assert servers.list_models(s.url) == ["fake-model"]
    finally:
        s.close()
