"""Time in journal text, Korean and English, as pure functions.

- relative.py: relative expressions (지지난주, 재작년, 작년 이맘때, last Friday…) -> absolute spans;
- recurring.py: recurring ones (매주 금요일, 주말마다, every Friday…) -> a recurrence rule, no date;
- natural.py: absolute dates written in words ("2026년 12월 1일", "December 1, 2026").
"""

from memoir_desktop.core.temporal import recurring
from memoir_desktop.core.temporal.natural import naturalize, phrase
from memoir_desktop.core.temporal.relative import (
           TimeSpan,
           names_one_day,
           normalize,
           only_vague,
           query_span,
           resolve,
)

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

__all__ = ["WEEKDAY_NAMES", "TimeSpan", "names_one_day", "naturalize", "normalize", "only_vague", "phrase",
           "query_span", "recurring", "resolve"]
