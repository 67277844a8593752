"""Command line: argv to exit code, and the only floor that prints for a person. Imports every
floor below; nothing imports it.
"""
