"""The figures of one comparison (one skill x model): benchmark, verdict, ablations, triggers,
costs, run conditions, multiplicity, the until-decided decision, planning. Imported by the rest
of review and by cli; imports nothing else of review."""
