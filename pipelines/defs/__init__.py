"""The Dagster code location, one folder per domain: landing -> core -> marts -> serving, and alerts."""
