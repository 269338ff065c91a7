"""Indexing the journal's entries for search tells its progress, batch by batch, up to the whole."""

from memoir_desktop.core import Memoir


def test_rebuilding_the_entry_index_reports_progress_to_the_end(tmp_path):
    mem = Memoir.open(tmp_path / "home", llm_base_url=None)
    try:
        for i in range(130):
            mem.journal.write(f"오늘은 {i}번째 날, 한강을 걸었다")
        seen = []
        mem.episodes.reconcile(progress=lambda done, total: seen.append((done, total)), force=True)
        assert seen and seen[-1] == (130, 130)
        assert [d for d, _t in seen] == sorted(d for d, _t in seen)
    finally:
        mem.close()
