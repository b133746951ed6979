"""Chemin de Fer as a game: the payoffs of each side's choices, and the equilibria (#37)."""
