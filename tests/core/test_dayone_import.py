"""Day One JSON exports (.zip or bare .json) read into plain entries, and every refusal explained."""

import json
import zipfile
from datetime import datetime

import pytest

from memoir_desktop.core.importers import dayone
from memoir_desktop.core.importers.dayone import DayOneError, DayOneImport, ImportedEntry, read_dayone_export

KOREAN = [
    {  # 15:30 UTC is already the next day in Seoul
        "uuid": "KO-JEJU",
        "creationDate": "2023-05-01T15:30:00Z",
        "modifiedDate": "2023-05-01T16:00:00Z",
        "timeZone": "Asia/Seoul",
        "text": "# 제주 여행\n\n성산일출봉에 갔다\\. 바람이 세다\\!\n\n![](dayone-moment://PHOTO1)\n\n"
        "내일은 우도\\(배 타고\\)\\.",
        "richText": '{"contents": []}',
        "tags": ["여행", "가족", "여행", " "],
        "starred": True,
        "isPinned": False,
        "location": {
            "placeName": "성산일출봉",
            "localityName": "서귀포시",
            "country": "대한민국",
            "latitude": 33.458,
            "longitude": 126.942,
        },
        "weather": {"conditionsDescription": "Windy", "temperatureCelsius": 17},
        "photos": [{"identifier": "PHOTO1", "md5": "0f3a", "type": "jpeg"}],
        "creationDevice": "iPhone",
        "duration": 0,
    },
    {  # photo-only: skipped, its photo still counted
        "uuid": "KO-PHOTO",
        "creationDate": "2023-05-02T03:00:00Z",
        "timeZone": "Asia/Seoul",
        "text": "![](dayone-moment://PHOTO2)\n",
        "photos": [{"identifier": "PHOTO2", "md5": "1b2c", "type": "heic"}],
    },
    {  # no time zone at all
        "uuid": "KO-NOZONE",
        "creationDate": "2023-05-03T01:00:00Z",
        "text": "시간대가 없는 일기",
    },
    {  # a name no zone database knows
        "uuid": "KO-MARS",
        "creationDate": "2023-05-04T10:00:00Z",
        "timeZone": "Mars/Olympus_Mons",
        "text": "화성에서",
        "starred": False,
    },
    {  # an old export's offset
        "uuid": "KO-OFFSET",
        "creationDate": "2023-05-05T10:00:00Z",
        "timeZone": "GMT+0900",
        "text": "오프셋 시간대",
    },
    {  # an unambiguous abbreviation
        "uuid": "KO-KST",
        "creationDate": "2023-05-06T10:00:00Z",
        "timeZone": "KST",
        "text": "약어 시간대",
    },
    {  # video, audio and pdf embeds, inline and on their own line
        "uuid": "KO-MEDIA",
        "creationDate": "2023-05-07T10:00:00Z",
        "timeZone": "Asia/Seoul",
        "text": "영상 ![](dayone-moment:/video/V1) 보고 ![](dayone-moment:/audio/A1)\n"
        "![](dayone-moment:/pdf/P1)\n끝",
    },
    {"uuid": "KO-EMPTY", "creationDate": "2023-05-08T10:00:00Z", "timeZone": "Asia/Seoul", "text": ""},
    {"uuid": "KO-NOTEXT", "creationDate": "2023-05-08T11:00:00Z", "timeZone": "Asia/Seoul"},
]

ENGLISH = [
    {  # 06:30 UTC on the DST day is 01:30 EST ...
        "uuid": "EN-BEFORE-DST",
        "creationDate": "2023-03-12T06:30:00Z",
        "timeZone": "America/New_York",
        "text": "Before the clocks changed",
    },
    {  # ... and an hour later it is 03:30 EDT
        "uuid": "EN-AFTER-DST",
        "creationDate": "2023-03-12T07:30:00.250Z",
        "timeZone": "America/New_York",
        "text": "After the clocks changed",
        "tags": ["dst"],
    },
    {  # 02:30 UTC is still the previous evening in New York
        "uuid": "EN-EVENING",
        "creationDate": "2023-05-02T02:30:00Z",
        "timeZone": "America/New_York",
        "text": "Late night\n## Lunch \\#1\nPlan\\: milk \\- eggs \\+ 2\\.5 kg \\#not\\-a\\-tag \\*really\\* \\_x\\_ "
        "\\[a\\] \\> q \\\\ \\`tick\\` and `C:\\Users\\.x`\n\\# Not a heading\n\\- not a list\n"
        "```\nraw \\. kept\n```",
        "location": {"localityName": "New York", "country": "United States"},
        "starred": True,
    },
]


def make_zip(path, journals, extra=()):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, entries in journals.items():
            zf.writestr(f"{name}.json", json.dumps({"metadata": {"version": "1.0"}, "entries": entries}))
        for name, data in extra:
            zf.writestr(name, data)
    return path


@pytest.fixture
def export(tmp_path):
    media = [("photos/0f3a.jpeg", b"\xff\xd8jpeg"), ("videos/aa.mov", b"mov"), ("pdfs/bb.pdf", b"%PDF")]
    return make_zip(tmp_path / "Day One Export.zip", {"일기": KOREAN, "Work Notes": ENGLISH}, media)


def by_id(result: DayOneImport) -> dict[str, ImportedEntry]:
    return {e.source_id: e for e in result.entries}


def test_reads_two_journals_in_creation_order(export):
    result = read_dayone_export(export)
    assert [e.source_id for e in result.entries] == [
        "EN-BEFORE-DST",
        "EN-AFTER-DST",
        "KO-JEJU",
        "EN-EVENING",
        "KO-NOZONE",
        "KO-MARS",
        "KO-OFFSET",
        "KO-KST",
        "KO-MEDIA",
    ]
    assert {e.journal for e in result.entries} == {"일기", "Work Notes"}
    assert result.skipped == 3  # photo-only, empty text, no text
    assert result.media == 5  # PHOTO1, PHOTO2, V1, A1, P1


def test_korean_entry_every_field(export):
    e = by_id(read_dayone_export(export))["KO-JEJU"]
    assert e == ImportedEntry(
        text="제주 여행\n\n성산일출봉에 갔다. 바람이 세다!\n\n내일은 우도(배 타고).",
        created_at=datetime(2023, 5, 2, 0, 30),  # the next local day
        time_zone="Asia/Seoul",
        tags=("여행", "가족"),
        starred=True,
        place="성산일출봉, 서귀포시, 대한민국",
        source_id="KO-JEJU",
        journal="일기",
    )
    assert e.created_at.tzinfo is None


def test_english_entry_escapes_headings_and_code(export):
    e = by_id(read_dayone_export(export))["EN-EVENING"]
    assert e.text == (
        "Late night\nLunch #1\nPlan: milk - eggs + 2.5 kg #not-a-tag *really* _x_ [a] > q \\ `tick` and "
        "`C:\\Users\\.x`\n# Not a heading\n- not a list\n```\nraw \\. kept\n```"
    )
    assert e.created_at == datetime(2023, 5, 1, 22, 30)  # the previous local day
    assert e.time_zone == "America/New_York"
    assert e.place == "New York, United States"
    assert e.starred is True
    assert e.tags == ()
    assert e.journal == "Work Notes"


def test_daylight_saving_change_in_new_york(export):
    entries = by_id(read_dayone_export(export))
    assert entries["EN-BEFORE-DST"].created_at == datetime(2023, 3, 12, 1, 30)
    assert entries["EN-AFTER-DST"].created_at == datetime(2023, 3, 12, 3, 30, 0, 250000)
    assert entries["EN-AFTER-DST"].tags == ("dst",)
    assert entries["EN-AFTER-DST"].starred is False
    assert entries["EN-AFTER-DST"].place is None


def test_time_zone_fallbacks_and_their_warnings(export):
    result = read_dayone_export(export)
    entries = by_id(result)
    assert entries["KO-NOZONE"].created_at == datetime(2023, 5, 3, 1, 0)
    assert entries["KO-NOZONE"].time_zone is None
    assert entries["KO-MARS"].created_at == datetime(2023, 5, 4, 10, 0)
    assert entries["KO-MARS"].time_zone is None
    assert entries["KO-OFFSET"].created_at == datetime(2023, 5, 5, 19, 0)
    assert entries["KO-OFFSET"].time_zone == "Etc/GMT-9"
    assert entries["KO-KST"].created_at == datetime(2023, 5, 6, 19, 0)
    assert entries["KO-KST"].time_zone == "Asia/Seoul"
    assert result.warnings == [
        "1 entry had no time zone; its time was read as UTC.",
        "1 entry had the unknown time zone 'Mars/Olympus_Mons'; its time was read as UTC.",
        "2 photos, 1 video, 1 audio recording and 1 PDF were not brought in: memoir keeps the text only.",
        "2 entries were starred in Day One; stars are not kept.",
        "2 entries had a location; locations are not kept.",
    ]


def test_media_of_every_kind_removed(export):
    e = by_id(read_dayone_export(export))["KO-MEDIA"]
    assert e.text == "영상 보고\n끝"
    assert "dayone-moment" not in "".join(x.text for x in read_dayone_export(export).entries)


def test_unknown_zones_are_counted_once_per_name(tmp_path):
    entries = [
        {"uuid": f"U{i}", "creationDate": f"2023-01-0{i + 1}T00:00:00Z", "timeZone": zone, "text": "x"}
        for i, zone in enumerate(["GMT+0530", "PST", "PST", "../etc/passwd", "zone.tab"])
    ]
    result = read_dayone_export(make_zip(tmp_path / "e.zip", {"Journal": entries}))
    assert [e.time_zone for e in result.entries] == [None] * 5
    assert result.warnings == [
        "1 entry had the unknown time zone 'GMT+0530'; its time was read as UTC.",
        "2 entries had the unknown time zone 'PST'; their times were read as UTC.",
        "1 entry had the unknown time zone '../etc/passwd'; its time was read as UTC.",
        "1 entry had the unknown time zone 'zone.tab'; its time was read as UTC.",
    ]


def test_bare_json_export(tmp_path):
    path = tmp_path / "Journal.json"
    path.write_text(json.dumps({"metadata": {"version": "1.0"}, "entries": ENGLISH}), encoding="utf-8")
    result = read_dayone_export(path)
    assert [e.source_id for e in result.entries] == ["EN-BEFORE-DST", "EN-AFTER-DST", "EN-EVENING"]
    assert {e.journal for e in result.entries} == {"Journal"}
    assert result.skipped == 0 and result.media == 0
    assert result.warnings == ["1 entry was starred in Day One; stars are not kept.",
                               "1 entry had a location; locations are not kept."]


def test_entries_without_date_or_uuid(tmp_path):
    entries = [
        {"uuid": "A", "text": "no date"},
        {"uuid": "B", "creationDate": "yesterday", "text": "bad date"},
        "not an entry",
        {"creationDate": "2023-01-01T00:00:00Z", "timeZone": "UTC", "text": "no uuid"},
    ]
    first = read_dayone_export(make_zip(tmp_path / "a.zip", {"Journal": entries}))
    again = read_dayone_export(make_zip(tmp_path / "b.zip", {"Journal": entries}))
    assert first.skipped == 3
    assert first.warnings == ["3 entries in 'Journal' had no readable creation date and were skipped."]
    [e] = first.entries
    assert e.text == "no uuid" and e.time_zone == "UTC"
    assert e.source_id.startswith("sha1:") and e.source_id == again.entries[0].source_id  # stable


def test_json_that_is_not_a_journal_is_skipped_beside_real_ones(tmp_path):
    path = make_zip(
        tmp_path / "e.zip",
        {"Journal": ENGLISH[:1]},
        [("settings.json", "{}"), ("__MACOSX/._Journal.json", "x")],
    )
    result = read_dayone_export(path)
    assert len(result.entries) == 1
    assert result.warnings == ["The file 'settings.json' is not a Day One journal and was skipped."]


def test_progress_reaches_the_total(export, monkeypatch):
    calls = []
    read_dayone_export(export, progress=lambda done, total: calls.append((done, total)))
    total = len(KOREAN) + len(ENGLISH)
    assert calls[0] == (0, total) and calls[-1] == (total, total)

    monkeypatch.setattr(dayone, "PROGRESS_EVERY", 2)
    calls.clear()
    read_dayone_export(export, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, total), (2, total), (4, total), (6, total), (8, total), (10, total), (total, total)]


def test_progress_on_an_empty_journal(tmp_path):
    calls = []
    result = read_dayone_export(
        make_zip(tmp_path / "e.zip", {"Journal": []}), progress=lambda *a: calls.append(a)
    )
    assert result.entries == [] and calls[0] == (0, 0) and calls[-1] == (0, 0)


# ---------------------------------------------------------------- refusals


def refusal(path) -> str:
    with pytest.raises(DayOneError) as info:
        read_dayone_export(path)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert message.endswith(".") and "\n" not in message  # one sentence fit to show a user
    return message


def test_not_a_zip(tmp_path):
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    assert "'notes.txt' is not a Day One export" in refusal(tmp_path / "notes.txt")
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really")
    assert "'broken.zip' is not a zip file" in refusal(tmp_path / "broken.zip")
    assert "does not exist" in refusal(tmp_path / "missing.zip")


def test_zip_without_json(tmp_path):
    path = make_zip(tmp_path / "photos.zip", {}, [("photos/0f3a.jpeg", b"jpeg")])
    assert "'photos.zip' has no journal inside" in refusal(path)


def test_json_without_entries(tmp_path):
    path = tmp_path / "e.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}}))
    assert "'Journal.json' is not a Day One export" in refusal(path)
    bare = tmp_path / "list.json"
    bare.write_text("[1, 2]", encoding="utf-8")
    assert "'list.json' is not a Day One export" in refusal(bare)


def test_damaged_json_names_the_file(tmp_path):
    path = make_zip(tmp_path / "e.zip", {"Journal": ENGLISH}, [("Travel.json", '{"entries": [\n{"uuid": ')])
    message = refusal(path)
    assert "'Travel.json' is damaged" in message and "line 2" in message
    path = make_zip(tmp_path / "f.zip", {}, [("Latin.json", "é".encode("latin-1"))])
    assert "'Latin.json' is damaged" in refusal(path)


def test_oversize_member_is_refused(tmp_path, monkeypatch):
    path = make_zip(tmp_path / "e.zip", {"Journal": ENGLISH})
    bare = tmp_path / "Journal.json"
    bare.write_text(json.dumps({"entries": ENGLISH}), encoding="utf-8")
    monkeypatch.setattr(dayone, "MAX_JSON_BYTES", 100)
    assert "'Journal.json' is larger than" in refusal(path)
    assert "'Journal.json' is larger than" in refusal(bare)


# ---------------------------------------------------------------- text cleaning


@pytest.mark.parametrize(
    ("raw", "text", "media"),
    [
        ("para1\n\n![](dayone-moment://A)\n\npara2", "para1\n\npara2", 1),
        ("para1\n![](dayone-moment://A)\npara2", "para1\npara2", 1),
        ("![](dayone-moment://A)![](dayone-moment://B)\n\n# Title", "Title", 2),
        ("a ![](dayone-moment://A) ![](dayone-moment:/pdf/P) b", "a b", 2),
        ("![caption](dayone-moment://A) 사진 설명", "사진 설명", 1),
        ("#hashtag stays", "#hashtag stays", 0),
        ("# Title #\nbody", "Title\nbody", 0),
        ("windows\r\nline\rends", "windows\nline\nends", 0),
        ("kept \\d and \\n letters", "kept \\d and \\n letters", 0),
        ("unclosed \\` tick \\. and ``code \\. span``", "unclosed ` tick . and ``code \\. span``", 0),
        ("~~~\n\\. in tilde fence\n~~~\n\\.", "~~~\n\\. in tilde fence\n~~~\n.", 0),
        ("[link](dayone2://view?entryId=X)", "[link](dayone2://view?entryId=X)", 0),
        ("   \n\n  ", "", 0),
    ],
)
def test_clean_text(raw, text, media):
    assert dayone.clean_text(raw) == (text, media)


def test_korean_journal_name_without_the_zip_utf8_flag(tmp_path):
    # Some zip writers store UTF-8 names without flagging them; Python then reads them as cp437.
    path = tmp_path / "e.zip"
    korean = "일기.json".encode()
    placeholder = b"X" * (len(korean) - 5) + b".json"  # ASCII, so zipfile sets no flag
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(placeholder.decode(), json.dumps({"entries": ENGLISH[:1]}))
    path.write_bytes(path.read_bytes().replace(placeholder, korean))  # the same length: offsets hold
    with zipfile.ZipFile(path) as zf:
        assert not zf.infolist()[0].flag_bits & 0x800
    assert [e.journal for e in read_dayone_export(path).entries] == ["일기"]
