"""The core tables: every landed row accepted, quarantined with its reason, or counted a duplicate."""
