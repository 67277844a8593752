"""JavaScript's semantics where claude plugin eval's graders use them: regexes as new RegExp
matches them, JSON text as JSON.stringify writes it. Imported by the readers and checks."""
