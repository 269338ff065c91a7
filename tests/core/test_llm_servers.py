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


def test_find_on_this_computer_looks_at_every_usual_port():
    ports = {port: label for port, _key, label in servers.LOCAL_PORTS}
    assert {11434, 8080, 1234, 8000, 8081, 1337, 5000} <= set(ports)
    assert "LocalAI" in ports[8081] and "LocalAI" in ports[8080] and "text-generation-webui" in ports[5000]
    urls = [url for _p, url, _l in servers.local_candidates()]
    assert len(urls) == len(set(urls)) == len(servers.LOCAL_PORTS)


def test_discovery_asks_every_port_at_once_and_names_what_answered():
    import time

    busy = [FakeLLM(models_delay=0.4) for _ in range(4)]
    try:
        rows = [(servers.BY_KEY["custom"], s.url, "LocalAI") for s in busy]
        start = time.perf_counter()
        found = servers.discover_local(rows, timeout=2.0)
        assert time.perf_counter() - start < 1.2, "the ports were asked one after the other"
        assert [f.base_url for f in found] == [s.url for s in busy]
        assert {f.name for f in found} == {"LocalAI"}
    finally:
        for s in busy:
            s.close()
