"""The count room: table events, the shifts reconciled against the wagers, the monthly report."""
