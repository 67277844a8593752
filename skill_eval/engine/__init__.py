"""The incremental engine: what is out of date and why (state, fast path, reasons), doit
integration (tasks: the only doit importer), executors, status and gc. Imported only by cli.
"""
