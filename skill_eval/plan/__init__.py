"""Pure planning: suite x cases to run specs with content keys, and grade keys. Hashes files
but calls nothing. Imported by store and the floors above.
"""
