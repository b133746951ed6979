"""Round logs arriving: files delivered by tables, and shoes the project deals itself."""
