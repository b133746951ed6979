"""The Dagster code location and the `banco` command line."""
