"""Every byte the target holds, on each kind of place: no entry or memory text in any encoding, no
text in any file name."""

import re

from tests.sync.test_join_and_merge import texts

ENTRIES = [
    "오늘은 엄마와 제주도 바다에서 수영을 했다. 물이 생각보다 따뜻했다",
    "Met Daniel at the climbing gym; he finally sent the overhang route",
    "Private: the argument with my brother still bothers me",
    "Grocery list turned into a recipe experiment with saffron",
]
MEMORIES = ["엄마는 바다 수영을 좋아한다", "Daniel climbs at the gym on Thursdays", "Experimenting with saffron recipes"]
NAME = re.compile(r"^devices/[0-9a-f]{16}/(key|head|seg-\d{10}|snap-\d{10}|epoch-\d{10})$")


def needles() -> list[str]:
    words = {w.strip(".,;:") for t in ENTRIES + MEMORIES for w in t.split()}
    return ENTRIES + MEMORIES + sorted(w for w in words if len(w) >= 5 or (len(w) >= 3 and not w.isascii()))


def test_no_text_leaves_the_computer(devices_on):
    laptop = devices_on.first()
    ids = [laptop.journal.write(t, private=t.startswith("Private")) for t in ENTRIES[:3]]
    for text, eid in zip(MEMORIES[:2], ids, strict=False):
        laptop.add(text, infer=False, entry_id=eid)
    laptop.journal.edit(ids[1], ENTRIES[1] + " after three tries")  # its history holds the old text too
    laptop.sync.run(devices_on.place.url)
    desk = devices_on.join("desk")
    did = desk.journal.write(ENTRIES[3])
    desk.add(MEMORIES[2], infer=False, entry_id=did)
    desk.journal.trash(did)
    desk.journal.restore(did)
    desk.sync.run()
    laptop.sync.run()
    assert len(texts(laptop)) == 4
    files = devices_on.place.files()
    assert files and all(NAME.match(name) for name in files), sorted(files)
    blob = b"".join(files.values())
    found = [(n, enc) for n in needles() for enc in ("utf-8", "utf-16-le", "utf-16-be")
             if n.encode(enc) in blob]
    assert found == []
    # The lock boxes are the only files not sealed (with the key epochs, none here), and they hold the
    # wrapped key alone, and the computer's public key to which a new key epoch is wrapped.
    for name, body in files.items():
        if name.endswith("/key"):
            assert set(__import__("json").loads(body)) <= {"format", "version", "journal_id", "cipher", "verifier",
                                                          "passphrase", "recovery", "box", "device_pub"}
        else:
            assert body.startswith(b"MEMOIR-SYNC-1\n")
