"""The review page's parts: each run's data (run_data) and its cache beside a skill's table
(cache), the history parts (history). Imported by render's html format and review.folder."""
