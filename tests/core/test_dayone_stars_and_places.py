"""A Day One import says plainly what memoir does not keep: stars and locations (memoir's entries have
no field for them), counted over the entries it imports."""

import io
import json
import zipfile

from memoir_desktop import cli
from memoir_desktop.core import logs

ENTRIES = [
    {"uuid": "S1", "creationDate": "2023-05-01T10:00:00Z", "timeZone": "Asia/Seoul", "text": "별표 한 날",
     "starred": True, "location": {"placeName": "성산일출봉", "localityName": "서귀포시", "country": "대한민국"}},
    {"uuid": "S2", "creationDate": "2023-05-02T10:00:00Z", "timeZone": "Asia/Seoul", "text": "another star",
     "starred": True},
    {"uuid": "P1", "creationDate": "2023-05-03T10:00:00Z", "timeZone": "Asia/Seoul", "text": "a plain day"},
    {"uuid": "E1", "creationDate": "2023-05-04T10:00:00Z", "timeZone": "Asia/Seoul", "text": "",  # photo only
     "starred": True, "location": {"placeName": "Nowhere"}, "photos": [{"identifier": "X"}]},
]


def dayone_zip(path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": ENTRIES}))
    path.write_bytes(buf.getvalue())
    return path


STARS = "2 entries were starred in Day One; stars are not kept."
PLACES = "1 entry had a location; locations are not kept."


def test_the_import_report_says_stars_and_locations_are_not_kept(mem, tmp_path):
    out = mem.archive.import_file(dayone_zip(tmp_path / "dayone.zip"))
    assert out["entries"] == 3 and out["skipped"] == 1
    assert STARS in out["warnings"] and PLACES in out["warnings"]


def test_memoir_cli_import_prints_them(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(logs, "_configured", True)
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", "day one passphrase")
    assert cli.main(["import", str(dayone_zip(tmp_path / "dayone.zip"))]) == 0
    out = capsys.readouterr().out
    assert STARS in out and PLACES in out


MEDIA_ENTRIES = [
    {"uuid": "M1", "creationDate": "2023-06-01T10:00:00Z", "timeZone": "Asia/Seoul",
     "text": "바다 ![](dayone-moment://PA)\n![](dayone-moment:/video/VA) 끝 ![](dayone-moment:/audio/AA)",
     "photos": [{"identifier": "PA"}, {"identifier": "PB"}],  # PB is in the entry but not in its text
     "videos": [{"identifier": "VA"}], "audios": [{"identifier": "AA"}]},
    {"uuid": "M2", "creationDate": "2023-06-02T10:00:00Z", "timeZone": "Asia/Seoul",  # photo only: skipped
     "text": "![](dayone-moment://PC)", "photos": [{"identifier": "PC"}],
     "pdfAttachments": [{"identifier": "DA"}]},
]
MEDIA = "3 photos, 1 video, 1 audio recording and 1 PDF were not brought in: memoir keeps the text only."


def media_zip(path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": MEDIA_ENTRIES}))
        z.writestr("photos/pa.jpeg", b"\xff\xd8")
    path.write_bytes(buf.getvalue())
    return path


def test_the_import_report_counts_the_attachments_it_did_not_bring_by_kind(mem, tmp_path):
    out = mem.archive.import_file(media_zip(tmp_path / "media.zip"))
    assert out["entries"] == 1 and out["skipped"] == 1
    assert out["media_kinds"] == {"photo": 3, "video": 1, "audio": 1, "pdf": 1} and out["media"] == 6
    assert MEDIA in out["warnings"]


def test_memoir_cli_import_says_which_attachments_it_did_not_bring(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(logs, "_configured", True)
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_PASSPHRASE", "day one passphrase")
    assert cli.main(["import", str(media_zip(tmp_path / "media.zip"))]) == 0
    assert MEDIA in capsys.readouterr().out
    assert cli.main(["import", str(dayone_zip(tmp_path / "dayone.zip"))]) == 0
    # The photo of a photo-only entry is not brought either: said as well.
    assert "1 photo was not brought in: memoir keeps the text only." in capsys.readouterr().out
