"""The serving snapshot: the copy of the warehouse that the dashboard and analysts read."""
