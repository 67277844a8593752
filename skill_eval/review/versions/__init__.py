"""Versions over time: history records, which version --against means, the blessed baseline,
compare, same outputs across versions. Imported by render, folder and cli; of review
it imports only comparison and resultsource."""
