"""Betting systems: declarative rules, their exact session distributions, and back-tests on shoes."""
