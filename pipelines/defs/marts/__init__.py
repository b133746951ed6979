"""The marts: every metric per gaming day, rebuilt a day at a time."""
