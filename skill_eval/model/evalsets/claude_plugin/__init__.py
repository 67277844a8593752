"""The claude plugin eval dialect: its evals/ folder reader, its graders as our checks, its case
run settings. Imported by the evalsets registry (and export, inspect)."""
