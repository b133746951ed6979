"""`banco export`: the serving snapshot as a folder that opens anywhere (folder.py), cut down to some
gaming days and tables (cut.py), with a README that says what is in it (readme.py)."""
