"""Checks on a loaded suite that its schema cannot express: the adapter command, folder names,
whether the adapter honours a case's run settings. Imported by model.project and above."""
