"""The metrics analysts come for, each one Polars function over the core tables, beside theory."""
