"""Reports as a regulator would have them filed: the monthly statistical report from the count-room marts,
and its exports (CSV, XLSX, PDF)."""
