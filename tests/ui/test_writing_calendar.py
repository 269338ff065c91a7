"""The writing calendar's month labels name every month it shows, the current one included."""

from datetime import date, timedelta

from memoir_desktop.ui.reflection.writing_calendar import month_labels


def _first_monday_before(today: date, weeks: int) -> date:
    return today - timedelta(days=today.weekday()) - timedelta(weeks=weeks - 1)


def test_the_current_month_is_labelled_before_its_first_monday():
    today = date(2026, 12, 3)  # a Thursday: the last column starts on Monday 30 November
    first = _first_monday_before(today, 26)
    labels = month_labels(first, 26, today)
    assert [m for _w, m in labels][-1] == 12
    assert labels[-1][0] == 25  # the column that holds 1 December
    assert [m for _w, m in labels] == [6, 7, 8, 9, 10, 11, 12]


def test_each_month_is_labelled_once_at_the_column_of_its_first_day():
    today = date(2026, 3, 16)
    first = _first_monday_before(today, 26)
    labels = month_labels(first, 26, today)
    for week, month in labels[1:]:
        days = [first + timedelta(weeks=week, days=i) for i in range(7)]
        assert any(d.day == 1 and d.month == month for d in days)
    months = [m for _w, m in labels]
    assert len(months) == len(set(months))
    assert len({w for w, _m in labels}) == len(labels)
