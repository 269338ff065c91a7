"""The mem0 peer of the retrieval benchmark: a clear message when it cannot run, never a silent skip."""

from __future__ import annotations

import builtins
import json

import pytest


def test_the_peer_run_says_what_to_install_when_mem0_is_missing(tmp_path, monkeypatch, capsys):
    from memoir_desktop.eval import locomo_retrieval

    real_import = builtins.__import__

    def no_mem0(name, *args, **kwargs):
        if name == "mem0" or name.startswith("mem0."):
            raise ImportError("No module named 'mem0'")
        return real_import(name, *args, **kwargs)

    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([]), "utf-8")
    monkeypatch.setattr(builtins, "__import__", no_mem0)
    assert locomo_retrieval.main(["--data", str(data), "--peer", "mem0", "--variant", "plain"]) == 2
    assert "pip install -e '.[bench]'" in capsys.readouterr().err


def test_the_peer_stores_and_finds_with_the_same_model(tmp_path):
    pytest.importorskip("mem0")
    from memoir_desktop.eval.mem0_peer import Mem0Peer

    peer = Mem0Peer(tmp_path / "mem0")
    try:
        ids = peer.add(["I like green tea", "My sister lives in Toronto", "I adopted a cat"], user_id="u")
        assert len(ids) == 3
        assert peer.search("where does my sibling live", user_id="u", limit=1) == [ids[1]]
        assert peer.search("green tea", user_id="someone-else", limit=3) == []
    finally:
        peer.close()
