"""The benchmark commands run end to end at tiny sizes and print their tables (plumbing, not quality)."""

from pathlib import Path

import pytest

from memoir_desktop.eval import bench, locomo_retrieval

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LOCOMO = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def test_bench_tiny(capsys, tmp_path):
    out_json = tmp_path / "bench.json"
    # 50 facts embedded by the model (the pool), 70 more with synthetic vectors; 2 journal turns
    assert bench.main(["--sizes", "50", "120", "--vectors", "synthetic", "--pool", "50", "--batch", "50",
                       "--queries", "12", "--profile", "--json", str(out_json)]) == 0
    out = capsys.readouterr()
    text = out.out
    assert "# Search latency" in text
    assert "| 50 |" in text and "| 120 |" in text
    assert "Qdrant local search" in text  # the profile table, at the largest size
    assert "loading 120/120" in out.err
    assert out_json.exists()


def test_bench_model_path(capsys):
    assert bench.main(["--sizes", "20", "--queries", "3"]) == 0
    text = capsys.readouterr().out
    assert "| 20 |" in text and "Model embedding while loading" in text


def test_llm_calls_per_turn_tiny(capsys):
    from tests.benchmarks import llm_calls

    assert llm_calls.main(["--turns", "2"]) == 0
    text = capsys.readouterr().out
    on = next(line for line in text.splitlines() if line.startswith("| on | 2 |"))
    off = next(line for line in text.splitlines() if line.startswith("| off | 2 |"))
    # extraction, and update from the second entry on (the first has no memory to compare with)
    assert float(off.split("|")[3]) == 1.5
    assert float(on.split("|")[3]) > 1.5  # plus the graph stages


def test_synthetic_data_is_varied_and_deterministic():
    facts = bench.synthetic_facts(300)
    assert facts == bench.synthetic_facts(300)
    texts = [f for f, _ in facts]
    assert len(set(texts)) > 250
    assert any("\uac00" <= ch <= "\ud7a3" for t in texts for ch in t)  # Korean
    assert any(t.isascii() for t in texts)  # English
    assert "{" not in "".join(texts)  # every slot and particle marker filled
    assert len(bench.synthetic_queries(20)) == 20


def test_locomo_retrieval_tiny(capsys):
    if not LOCOMO.exists():
        pytest.skip("LoCoMo dev data not present")
    assert locomo_retrieval.main(["--data", str(LOCOMO), "--limit-questions", "30", "--variant", "plain"]) == 0
    out = capsys.readouterr()
    text = out.out
    assert "## items plain" in text
    for retriever in ("memoir hybrid", "BM25", "dense", "ceiling"):
        assert f"| all 1–4 | {retriever} | 30 |" in text
    for cat in (1, 2, 3, 4):
        assert f"| {locomo_retrieval._cat_label(cat)} | memoir hybrid |" in text
    assert "ratio memoir / BM25" in text
    assert "conv-26" in out.err


def test_locomo_missing_data(tmp_path, capsys):
    assert locomo_retrieval.main(["--data", str(tmp_path / "absent.json")]) == 2


def test_simple_bm25_ranks_term_matches_first():
    bm = locomo_retrieval.SimpleBM25(["the cat sat", "a dog barked", "cat and dog"])
    ranked = [i for i, _ in bm.search("Cat?", 10)]
    assert set(ranked) == {0, 2} and 1 not in ranked


def test_bench_encryption_tiny(capsys, tmp_path):
    from memoir_desktop.eval import bench_encryption

    out_json = tmp_path / "enc.json"
    assert bench_encryption.main(["--sizes", "200", "--queries", "5", "--opens", "1", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "plain" in out and "encrypted" in out and "ratio" in out
    import json

    row = json.loads(out_json.read_text("utf-8"))["sizes"]["200"]
    assert row["plain"]["open_s"] > 0 and row["encrypted"]["search_ms"][0] > 0


def test_mcp_beside_the_app_tiny():
    """A client searching while the app journals and memorises: no failed call, no locked database, and
    the server finds what the app memorised meanwhile (the figures are the benchmark's, not checked here)."""
    from tests.benchmarks import mcp_beside_app

    result = mcp_beside_app.run(seconds=6, memories=40)
    assert result["calls"] > 0 and result["app_entries"] > 0 and result["app_jobs"] > 0
    assert result["call_errors"] == 0 and result["app_errors"] == 0 and result["database_locked"] == 0
    assert result["server_found_new_memories"], result
