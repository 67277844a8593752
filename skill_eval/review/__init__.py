"""Everything under results/: benchmark tables, summaries, report formats (render/), the
review page's cache and exports, rebuilt from the store. Imported by engine and cli.
"""
