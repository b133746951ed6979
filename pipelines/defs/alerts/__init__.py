"""Alerts in Dagster: the rules evaluated after each serving publish, and a failed run announced."""
