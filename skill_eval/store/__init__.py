"""The content-addressed store: runs, grades, verdicts and errors, written atomically,
verified on read, redacted before anything is written. Imported by run and the floors above.
"""
