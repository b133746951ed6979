"""Exact probabilities and house edges for any shoe composition."""
