"""Reading and validating round logs: the vectorised twins of the card and tableau rules."""
