"""The results folder as a view of the store: tables and their state, per-run folders, results
files, the current version. Imported by exports, engine and cli."""
