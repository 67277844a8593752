"""One output and its checks to a verdict with evidence: the check registry (checks/), a
run's grade, and the judge as a port handed in from above (grade never starts an agent).
Imported by review, engine and cli.
"""
