"""An entry that is only numbers ("4821", "1 2 3") names nothing by meaning: the search field lists it
for its own number, never for an unrelated word (it came up for 고양이, 주말, 여행)."""

from memoir_desktop.core import Memoir

LINES = ["4821", "2026", "1 2 3", "오늘 고양이랑 놀았다", "회사 앞 카페에서 라떼를 마셨다", "동생 생일 선물을 샀다"]


def test_numbers_are_found_by_their_own_words_only(tmp_path):
    with Memoir.open(tmp_path / "home", encrypt=False) as m:
        for text in LINES:
            m.journal.write(text)
            m.add(text, infer=False)
        for query in ("커피", "고양이", "강아지", "선물", "여행"):
            found = m.search_field.find(query)
            shown = [e["content"] for e in found["entries"]] + [x["memory"] for x in found["memories"]]
            assert not {"4821", "2026", "1 2 3"} & set(shown), (query, shown)
        found = m.search_field.find("2026")
        assert [e["content"] for e in found["entries"]] == ["2026"]
