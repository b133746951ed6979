"""What a table-shift's count against its wagers says (docs/metrics.md, Count room): the statuses the
count room gives and the report, the checks and the page read."""

RECONCILED, EXPLAINED, UNRECONCILED = "reconciled", "explained", "unreconciled"
NO_OPENER, NO_CLOSER, OVERLAPPING = "no_opener", "no_closer", "overlapping"
#: The statuses that need no one's attention: the count agrees with the logs.
AGREED = (RECONCILED, EXPLAINED)
