"""The DuckDB warehouse: its tables, the single writer, the serving snapshot, ingestion."""
