"""Cards, the drawing rules (the tableau), pay tables and settlement for every game in the family."""
