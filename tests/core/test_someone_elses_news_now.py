"""A question about now that names someone else gets their newest news first: "What's Dara doing
now?" is answered by the apprenticeship he started this spring, not by the mine job he had before,
however much more that older line says about him. The diarist's own lines and other people's do not
take part, nor do Dara's lines that say something else (a birthday call, a borrowed ladder), though
newer."""

from __future__ import annotations

from datetime import datetime

from tests.core import dated_journal

NOW = datetime(2026, 11, 20, 23, 30)

ROWS = [
    ("2024-11-03", "Raked the leaves off the lawn and filled three bags."),
    ("2024-11-20", "Book club picked a thriller this month, not my thing."),
    ("2024-12-08", "Bought a new kettle; the old one finally gave up."),
    ("2025-03-15", "Long walk on the Burren with the hiking group."),
    ("2025-04-26", "Painted the garden bench green."),
    ("2025-05-30", "Car passed the NCT at last."),
    ("2025-08-09", "Swam at Salthill even though it was freezing."),
    ("2026-01-17", "Started a pottery class on Thursday evenings."),
    ("2026-02-21", "Made a lopsided bowl in pottery; still proud of it."),
    ("2026-04-11", "Rain all week, stayed in and read."),
    ("2026-06-27", "Went to a wedding in Kilkee; danced till two."),
    ("2026-07-14", "New glasses, varifocals this time."),
    ("2026-09-05", "Pottery class is back after the summer; made a jug."),
    ("2026-10-10", "Fixed the leak under the sink myself, with a YouTube video."),
    ("2026-11-02", "Hiking group did Diamond Hill in the fog."),
    ("2026-11-15", "Booked flights to Lisbon for February."),
    ("2025-01-10", "Dara landed in Perth on a working holiday visa and is picking grapes in the Swan Valley."),
    ("2025-02-02", "Took the bus into town for the dentist, then coffee with Aoife."),
    ("2025-06-02", "Dara's gone out to a mine site in the Pilbara, two weeks on and one week off, driving a haul truck."),
    ("2025-07-19", "Aoife started a new job at the credit union in Ennis."),
    ("2025-09-14", "Dara's girlfriend Kenzie is from Mudgee and she's flying over for Christmas."),
    ("2025-10-05", "Dara rang on his birthday from a beach, sunburnt and happy."),
    ("2025-11-30", "Finished the hall curtains at last, the blue ones."),
    ("2025-12-27", "Dara sent a video of a kangaroo in the caravan park at dawn."),
    ("2026-03-20", "Dara's home for good and starting an electrician apprenticeship with a firm in Galway."),
    ("2026-05-08", "Planted the broad beans along the back wall."),
    ("2026-08-23", "Mam's knee is better; she walked the prom with me on Sunday."),
    ("2026-09-12", "Dara and Kenzie came for Sunday dinner; he carved the lamb."),
    ("2026-10-30", "Lent Dara the ladder and he still hasn't brought it back."),
]


APPRENTICE = "Dara's home for good and starting an electrician apprenticeship with a firm in Galway."


def test_what_someone_is_doing_now_is_their_newest_news(mem):
    dated_journal.write(mem, ROWS)
    got = dated_journal.top(mem, "What's Dara doing for work now?", NOW)
    assert got[0] == APPRENTICE, got


